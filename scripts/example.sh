#!/bin/sh
# Sets up cleave and runs the flagship example on the default device
# (CLEAVE_DEVICE, else the GPU when one is usable, else the CPU).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
cd "$root"
exec "${CLEAVE_BUILD:-$root/build}/cleave" run scripts/wave_demo.lua "$@"

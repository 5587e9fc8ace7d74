#!/bin/sh
# Sets up cleave and runs the flagship example, Kalthoff-Winkler (bond-based
# peridynamics), on the default device (CLEAVE_DEVICE, else the GPU when one
# is usable, else the CPU). Arguments go to the script: [dx_mm] [precision] [outdir].
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
cd "$root"
exec "${CLEAVE_BUILD:-$root/build}/cleave" run scripts/kalthoff_winkler.lua "$@"

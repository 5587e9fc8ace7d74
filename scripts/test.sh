#!/bin/sh
# Sets up cleave and runs the whole test suite (CTest: C unit tests, Lua
# tests, command-line, REPL and output tests). CLEAVE_DEVICE selects the
# backend the tests run on (default auto).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${CLEAVE_BUILD:-$root/build}
"$root/scripts/setup.sh"
cd "$build"
ctest --output-on-failure -j "$(nproc 2>/dev/null || echo 2)" --timeout 600 "$@"

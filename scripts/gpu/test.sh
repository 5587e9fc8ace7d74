#!/bin/sh
# On the GPU machine: runs the test suite built by scripts/gpu/build.sh with
# the CUDA backend (CLEAVE_DEVICE=cuda), then the parity tests verbosely.
# Logs go to $OUT when set.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
sh "$root/scripts/gpu/unpack.sh"
# the build records absolute paths of this checkout: make them valid here
built_root=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$root/.gpu/build/CMakeCache.txt")
if [ "$built_root" != "$root" ] && [ ! -e "$built_root" ]; then
  mkdir -p "$(dirname "$built_root")" && ln -s "$root" "$built_root"
fi
# the tests name their executables in the build tree (.gpu-build, carried as .gpu/build)
[ -e "$root/.gpu-build" ] || ln -s "$root/.gpu/build" "$root/.gpu-build"
export LD_LIBRARY_PATH="$root/.gpu/lib:${LD_LIBRARY_PATH:-}"
export PATH="$root/.gpu/bin:$PATH"
export LUA_CPATH="$root/.gpu/lua/5.4/?.so;;"
export CLEAVE_DEVICE=${CLEAVE_DEVICE:-cuda}
log=${OUT:-/tmp}
cd "$root/.gpu/build" || exit 1
"$root/.gpu/build/cleave" info | tee "$log/info.txt"
ctest --output-on-failure -j 8 --timeout 300 "$@" >"$log/ctest.txt" 2>&1
status=$?
cat "$log/ctest.txt"
CLEAVE_TEST_OUT=/tmp/parity LUA_PATH="$root/tests/lua/?.lua;;" \
  "$root/.gpu/build/cleave" run "$root/tests/lua/test_parity.lua" 2>&1 | tee "$log/parity.txt"
exit $status

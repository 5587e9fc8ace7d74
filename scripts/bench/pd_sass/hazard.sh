#!/bin/sh
# Test (tests/CMakeLists.txt, sass/test_pd_sass_hazard): no step kernel (PD's, and the cohesive FEM's
# node kernel) stores to a global address while its load of that address is in flight (hazard.py;
# kernels/pd/point_force.h, cl_pd_finish, says why), in the SASS for sm_90 of hazard_probe.cu, f32 and f64. Needs nvcc and cuobjdump: $CUOBJDUMP,
# cuobjdump on PATH or beside nvcc (pip install nvidia-cuda-cuobjdump puts one in its bin/); exits 77
# (skipped) without one.
# usage: sh scripts/bench/pd_sass/hazard.sh [NVCC] [ROOT]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
nvcc=${1:-nvcc}
root=${2:-$here/../../..}
cuobjdump=${CUOBJDUMP:-$(command -v cuobjdump || true)}
[ -n "$cuobjdump" ] || cuobjdump=$(dirname "$nvcc")/cuobjdump
if ! [ -x "$cuobjdump" ]; then
  echo "hazard.sh: no cuobjdump (set CUOBJDUMP, or put it on PATH: pip install nvidia-cuda-cuobjdump): skipped"
  exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
for precision in f32 f64; do
  define=""
  [ $precision = f32 ] && define=-DCL_PRECISION_F32
  "$nvcc" -O2 $define -I"$root" -arch=sm_90 -cubin -o "$out/probe.cubin" "$here/hazard_probe.cu"
  "$cuobjdump" -sass "$out/probe.cubin" > "$out/probe.sass"
  echo "$precision:"
  python3 "$here/hazard.py" "$out/probe.sass" || status=1
done
exit $status

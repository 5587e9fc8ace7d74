#!/bin/sh
# SASS instructions per bond of the lattice step kernels (issue 19: the step is issue-bound), for
# sm_90, f32 and f64, without a GPU: the stencil walk from probe.cu (compiled without per-point
# volumes, surface correction and energies) and the unrolled kernels of kernels/pd/force_cuda.cu
# as built, both against the source tree ROOT (default: this checkout); counted by per_bond.py.
# Needs nvcc, cuobjdump and nvdisasm (pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm,
# then put their bin/ on PATH).
# usage: sh scripts/bench/pd_sass/count.sh [ROOT] [--walk-only]   (--walk-only: a tree before the unrolled kernels)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=${1:-$here/../../..}
out=$(mktemp -d)
for precision in f32 f64; do
  define=""
  [ $precision = f32 ] && define=-DCL_PRECISION_F32
  nvcc -O2 $define -I"$root" -arch=sm_90 -cubin -o "$out/probe.cubin" "$here/probe.cu"
  cuobjdump -sass "$out/probe.cubin" > "$out/kernels.sass"
  if [ "${2:-}" != "--walk-only" ]; then
    nvcc -O2 $define -arch=sm_90 -cubin -o "$out/force.cubin" "$root/kernels/pd/force_cuda.cu"
    cuobjdump -sass "$out/force.cubin" >> "$out/kernels.sass"
  fi
  echo "$precision:"
  python3 "$here/per_bond.py" "$out/kernels.sass" | grep -E "probe_walk|table|tile"
done
rm -rf "$out"

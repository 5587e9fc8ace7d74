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
  if [ "${2:-}" != "--walk-only" ]; then
    # the 3D tile kernel's hot path alone: the dense loop's words of state 0 (stencil_tile.cuh), the
    # presence test and the old-state test forced off in a copy of the kernels (counting only: the
    # copy is not a valid kernel), the whole kernel over K
    rm -rf "$out/tree" && mkdir -p "$out/tree" && cp -r "$root/kernels" "$out/tree/"
    tile="$out/tree/kernels/pd/stencil_tile.cuh"
    sed -i 's/const bool checked = __syncthreads_or(gap) || DIM == 2 || !dense;/(void)__syncthreads_or(gap); const bool checked = DIM == 2;/; s/if (!CHECK \&\& state == 0)/if (!CHECK)/' "$tile"
    [ "$(grep -c 'const bool checked = DIM == 2;\|if (!CHECK)$' "$tile")" = 2 ] ||
      { echo "count.sh: stencil_tile.cuh no longer has the lines the dense count forces" >&2; exit 1; }
    nvcc -O2 $define -I"$out/tree" -arch=sm_90 -cubin -o "$out/dense.cubin" "$here/tile_dense.cu"
    cuobjdump -sass "$out/dense.cubin" | python3 -c 'import re, sys
n = len(re.findall(r"/\*[0-9a-f]{4,}\*/\s+[^;]*;", sys.stdin.read()))
print(f"3D tile, dense loop, words of state 0, PLAIN   {n / 122:6.1f} instructions per bond with the point'"'"'s share")'
  fi
done
rm -rf "$out"

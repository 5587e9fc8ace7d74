#!/bin/sh
# SASS instructions per bond of the lattice step kernels (issue 19: the step is issue-bound), for
# sm_90, f32 and f64, without a GPU: compiles probe.cu against the kernel headers of the source
# tree ROOT (default: this checkout) and counts with per_bond.py. Needs nvcc, cuobjdump and
# nvdisasm (pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm, then put their bin/ on PATH).
# usage: sh scripts/bench/pd_sass/count.sh [ROOT] [--walk-only]   (--walk-only: a tree before the table kernel)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=${1:-$here/../../..}
table=-DPROBE_TABLE
[ "${2:-}" = "--walk-only" ] && table=""
out=$(mktemp -d)
for precision in f32 f64; do
  define=""
  [ $precision = f32 ] && define=-DCL_PRECISION_F32
  nvcc -O2 $define $table -I"$root" -arch=sm_90 -cubin -o "$out/probe.cubin" "$here/probe.cu"
  cuobjdump -sass "$out/probe.cubin" > "$out/probe.sass"
  echo "$precision:"
  python3 "$here/per_bond.py" "$out/probe.sass"
done
rm -rf "$out"

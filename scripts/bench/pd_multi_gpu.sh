#!/bin/sh
# Issue 18 on the GPU machine: peridynamics over 1, 2, 4, 8 GPUs of one host through NCCL, from the
# bundle of scripts/gpu/build_ranks.sh (carried as .gpu-ranks), one rank per GPU (scripts/gpu/ranks.sh).
#   sh scripts/bench/pd_multi_gpu.sh [what = "kw weak strong"] [ranks = "1 2 4 8", those the host has]
# kw:     Kalthoff-Winkler at 0.1 mm in f64 on each rank count, compared with one rank (1e-12 on u,
#         the same bond words; pd_scaling.lua compare);
# weak:   1e8 points per GPU, f32 and f64, overlap on; efficiency T(1) / T(N);
# strong: one 4e8-point square, f32 and f64; efficiency T(1) / (N T(N)) (needs the memory of one GPU
#         for 4e8 points: an H200);
# each line as pd_scaling.lua prints it (ms per step, halo bytes, halo time and share, link GB/s).
# With RANKS="1 2" on a one-GPU machine the two ranks share the GPU (MPI through host buffers):
# a check of the path, not a scaling figure. Logs in $OUT.
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp}
what=${1:-kw weak strong}
gpus=$(nvidia-smi -L | wc -l)
ranks=${2:-$(for n in 1 2 4 8; do [ "$n" -le "$gpus" ] && echo $n; done)}
run() { timeout "${LIMIT:-300}" sh "$root/scripts/gpu/ranks.sh" "$@"; }
export CLEAVE_DEVICE=cuda OMP_NUM_THREADS=${OMP_NUM_THREADS:-8}
for w in $what; do
  for np in $ranks; do
    case $w in
      kw) run "$np" "$root/scripts/bench/pd_scaling.lua" kw 0.1 /tmp/pd_kw >"$out/kw_$np.txt" 2>&1
          tail -1 "$out/kw_$np.txt"
          [ "$np" -gt 1 ] && run 1 "$root/scripts/bench/pd_scaling.lua" compare /tmp/pd_kw/kw_1ranks.ckpt "/tmp/pd_kw/kw_${np}ranks.ckpt" ;;
      weak|strong)
        for p in f32 f64; do
          run "$np" "$root/scripts/bench/pd_scaling.lua" "$w" "${POINTS:-}" "$p" 20 >"$out/${w}_${p}_$np.txt" 2>&1
          tail -1 "$out/${w}_${p}_$np.txt"
        done ;;
    esac
  done
done

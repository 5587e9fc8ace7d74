#!/bin/sh
# Issue 18 on the GPU machine: peridynamics over 1, 2, 4, 8 GPUs of one host through NCCL, from the
# bundle of scripts/gpu/build_ranks.sh (carried as .gpu-ranks.tgz), one rank per GPU (scripts/gpu/ranks.sh).
#   sh scripts/bench/pd_multi_gpu.sh [what = "kw weak strong largest"] [ranks = "1 2 4 8", those the host has]
# kw:      Kalthoff-Winkler at 0.1 mm in f64 on each rank count, compared with one rank (1e-12 on u,
#          the same bond words; pd_scaling.lua compare);
# weak:    1e8 points per GPU, f32 and f64, overlap on; efficiency T(1) / T(N);
# strong:  one 4e8-point square, f32 and f64; efficiency T(1) / (N T(N)) (needs the memory of one GPU
#          for 4e8 points: an H200);
# largest: the largest problem on the most ranks only: 2D, f32, the lattice with breaking on,
#          POINTS per GPU (default 1.2502e9: blocks of 35 357^2 points, so 8 GPUs hold 1.0001e10),
#          5 steps a sample; its line gives the step time and the memory per GPU (GB/rank, B/point);
# each line as pd_scaling.lua prints it (ms per step, halo bytes, halo time and share, link GB/s,
# set-up s, GB per rank). POINTS overrides the points of weak, strong and largest; LIMIT the seconds
# a run may take (300; largest 580, the device tool's 10 minutes less the start).
# With RANKS="1 2" on a one-GPU machine the two ranks share the GPU (MPI through host buffers):
# a check of the path, not a scaling figure. Logs in $OUT; exits non-zero if any run failed.
#
# DRY_RUN=1 runs every mode here, on CPU ranks (mpirun from PATH, $CLEAVE or build/cleave, one OpenMP
# thread a rank) at a tiny size (kw at 2 mm, 2e4 points per rank, 2 steps), so that the script cannot
# fail on a typo on the expensive machine:
#   DRY_RUN=1 sh scripts/bench/pd_multi_gpu.sh [what] [ranks = "1 2"]
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp}
what=${1:-kw weak strong largest}
bench=$root/scripts/bench/pd_scaling.lua
if [ -n "${DRY_RUN:-}" ]; then
  cleave=${CLEAVE:-$root/build/cleave}
  ranks=${2:-1 2}
  export CLEAVE_DEVICE=cpu OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  run() { limit=$1 np=$2; shift 2; timeout "$limit" mpirun --oversubscribe -np "$np" "$cleave" run "$@"; }
  kw_dx=2 steps=2 weak=2e4 strong=4e4 largest=2e4
else
  gpus=$(nvidia-smi -L | wc -l)
  ranks=${2:-$(for n in 1 2 4 8; do [ "$n" -le "$gpus" ] && echo $n; done)}
  export CLEAVE_DEVICE=cuda OMP_NUM_THREADS=${OMP_NUM_THREADS:-8}
  run() { limit=$1; shift; timeout "$limit" sh "$root/scripts/gpu/ranks.sh" "$@"; }
  kw_dx=0.1 steps=20 weak=${POINTS:-1e8} strong=${POINTS:-4e8} largest=${POINTS:-1.2502e9}
fi
kw_dir=$out/pd_kw
status=0
# step NAME LIMIT NP SCRIPT ARGS...: one run, its log in $OUT/NAME.txt, its last line printed (the
# column heads too, for the first run of a mode: header=1)
step() {
  name=$1; shift
  if run "$@" >"$out/$name.txt" 2>&1; then
    tail -$((1 + header)) "$out/$name.txt"
    header=0
  else
    echo "pd_multi_gpu: $name failed (status $?), the end of $out/$name.txt:"
    tail -5 "$out/$name.txt"
    status=1
  fi
}
most=$(for np in $ranks; do echo "$np"; done | sort -n | tail -1)
for w in $what; do
  [ "$w" = kw ] && header=0 || header=1
  case $w in
    kw)
      for np in $ranks; do
        step "kw_$np" "${LIMIT:-300}" "$np" "$bench" kw "$kw_dx" "$kw_dir"
        [ "$np" -gt 1 ] && step "kw_compare_$np" "${LIMIT:-300}" 1 "$bench" compare "$kw_dir/kw_1ranks.ckpt" "$kw_dir/kw_${np}ranks.ckpt"
      done ;;
    weak|strong)
      [ "$w" = weak ] && points=$weak || points=$strong
      for np in $ranks; do
        for p in f32 f64; do step "${w}_${p}_$np" "${LIMIT:-300}" "$np" "$bench" "$w" "$points" "$p" "$steps"; done
      done ;;
    largest)
      step "largest_$most" "${LIMIT:-580}" "$most" "$bench" weak "$largest" f32 5 2 ;;
    *)
      echo "pd_multi_gpu: unknown mode '$w' (kw, weak, strong, largest)"
      status=1 ;;
  esac
done
exit $status

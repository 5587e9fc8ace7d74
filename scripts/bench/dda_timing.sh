#!/bin/sh
# The DDA step's time on the paper's two cases, several runs of each, as one table: what a change to
# the DDA step is judged by before it is kept (the same build run one case after the other varies by
# ~5% from run to run on the H100, so one run of each side decides nothing).
#   sh scripts/bench/dda_timing.sh [runs = 3] [case1 steps = 30] [case2 steps = 60]
# Runs `dda_case1.lua STEPS` and `dda_case2.lua STEPS 20` RUNS times each with $CLEAVE (default:
# .gpu/build/cleave where scripts/gpu/build.sh's bundle is unpacked, else build/cleave) on the device
# that CLEAVE_DEVICE names, and prints per run the module table's ms a step (detection, non-diagonal
# matrix building, equation solving, whole step), the PCG iterations a step and the µs a PCG iteration
# (equation solving over the iterations: the assembly's kernels, which the host waits for in the solve,
# included), then the range of each column. Logs in $OUT (or /tmp). Exits non-zero if a run failed.
# The environment passes to the runs: the scripts' and the model's switches (CLEAVE_DDA_PCG_VARIANT,
# CLEAVE_DDA_PATTERN_REUSE, CLEAVE_DDA_OC_LOOSE, ...) time one build's two paths, one call each.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-3} steps1=${2:-30} steps2=${3:-60}
out=${OUT:-/tmp}
if [ -z "${CLEAVE:-}" ]; then
  CLEAVE=$root/build/cleave
  [ -x "$root/.gpu/build/cleave" ] && CLEAVE=$root/.gpu/build/cleave
fi
status=0
table=$out/dda_timing.txt
: >"$table"
for k in $(seq 1 "$runs"); do
  for c in 1 2; do
    log=$out/dda_timing_case${c}_$k.txt
    if [ "$c" = 1 ]; then args="$steps1"; else args="$steps2 20"; fi
    # shellcheck disable=SC2086 # args holds the script's arguments, split on purpose
    if ! (cd "$out" && "$CLEAVE" run "$root/scripts/bench/dda_case$c.lua" $args) >"$log" 2>&1; then
      echo "case $c, run $k failed: $log" >&2
      status=1
      continue
    fi
    awk -v c="$c" -v k="$k" '
      /^contact detection/ { det = $(NF - 3) }
      /^non-diagonal matrix building/ { nd = $(NF - 3) }
      /^equation solving/ { sol = $(NF - 3) }
      /^total/ { tot = $(NF - 3) }
      /PCG iterations a step: / { for (i = 1; i <= NF; i++) if ($i == "step:") pcg = $(i + 1) }
      END { printf "case%s run%s %s %s %s %s %s %.1f\n", c, k, det, nd, sol, tot, pcg, 1000 * sol / pcg }
    ' "$log" >>"$table"
  done
done
awk '
  BEGIN { printf "%-6s %-5s %10s %12s %10s %10s %6s %12s\n", "case", "run", "detection", "non-diagonal", "solving",
          "step", "PCG", "us/PCG it" }
  { printf "%-6s %-5s %10s %12s %10s %10s %6s %12s\n", $1, $2, $3, $4, $5, $6, $7, $8
    for (i = 3; i <= 8; i++) { key = $1 SUBSEP i
      if (!(key in lo) || $i + 0 < lo[key]) lo[key] = $i + 0
      if (!(key in hi) || $i + 0 > hi[key]) hi[key] = $i + 0 }
    seen[$1] = 1 }
  END { for (c in seen) { printf "%-6s %-5s", c, "range"
          for (i = 3; i <= 8; i++) printf " %s", lo[c SUBSEP i] "-" hi[c SUBSEP i]
          printf "\n" } }
' "$table"
exit $status

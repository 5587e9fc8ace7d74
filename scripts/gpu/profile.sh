#!/bin/sh
# On the GPU machine: Nsight Compute over a cleave script, for kernels whose
# names match REGEX. First a per-kernel summary of every launch's duration
# (cheap: one metric), then the SpeedOfLight, launch, occupancy, memory and
# warp-state sections of COUNT launches after SKIP matching ones.
# Usage: sh scripts/gpu/profile.sh NAME REGEX SKIP COUNT script.lua [args...]
# Output: $OUT/ncu_NAME_summary.txt and $OUT/ncu_NAME.txt. NCU_NAME_BASE=demangled matches REGEX
# against the whole demangled name (template arguments included; default: the function name).
set -u
[ $# -ge 5 ] || { echo "usage: profile.sh NAME REGEX SKIP COUNT script.lua [args...]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
sh "$root/scripts/gpu/unpack.sh"
name=$1 regex=$2 skip=$3 count=$4; shift 4
script=$1; shift
out=${OUT:-/tmp}
export LD_LIBRARY_PATH="$root/.gpu/lib:${LD_LIBRARY_PATH:-}" CLEAVE_DEVICE=cuda
export LUA_PATH="$root/tests/lua/?.lua;;" CLEAVE_SOURCE="$root"
cleave="$root/.gpu/build/cleave"
# --clock-control none: the device notes ask to leave the clocks alone
ncu --clock-control none --metrics gpu__time_duration.sum --print-summary per-kernel \
  "$cleave" run "$script" "$@" >"$out/ncu_${name}_summary.txt" 2>&1
ncu --clock-control none --kernel-name-base "${NCU_NAME_BASE:-function}" -k "regex:$regex" --launch-skip "$skip" --launch-count "$count" \
  --section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis \
  --section WarpStateStats --section SchedulerStats --section InstructionStats \
  "$cleave" run "$script" "$@" >"$out/ncu_${name}.txt" 2>&1
echo "== $name: $(grep -c '^  [a-zA-Z_].*(' "$out/ncu_${name}.txt") kernels profiled"

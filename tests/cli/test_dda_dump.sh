# CLEAVE_DDA_DUMP (kernels/dda/model.c) and scripts/bench/dda_precond.c reading it, CPU: case 1's
# analogue at 279 blocks writes its first system once, which block Jacobi, SSOR-AI and IC(0) all
# solve to their residuals (recomputed) with IC(0) under block Jacobi's iterations; an unwritable
# path and the HSBCSR format are errors naming the fix; a cut-short file is refused by the reader.
. "$CLEAVE_SOURCE/tests/cli/lib.sh"

case1="$CLEAVE_SOURCE/scripts/bench/dda_case1.lua"
mkdir -p "$tmp/work" && cd "$tmp/work" || exit 1 # the case writes out/dda_case1/ here
CLEAVE_DDA_DUMP="$tmp/case1.bin" CLEAVE_DDA_PCG=persistent run "$CLEAVE" --device cpu run "$case1" 1 3 block_jacobi bsr
expect_status 0 "case 1 at 279 blocks runs with CLEAVE_DDA_DUMP"
[ "$(head -c 8 "$tmp/case1.bin" 2>/dev/null)" = CLDDABSR ] && ok "the dump is written, its magic first" ||
  ko "no dump at $tmp/case1.bin"

run "$CLEAVE_BUILD/dda_precond" cpu "$tmp/case1.bin" 1 0 0 1e-3 check
expect_status 0 "dda_precond solves the dumped system with every preconditioner, IC(0) below block Jacobi"
expect_out "279 block rows" "dda_precond reads the model's 279 blocks"

CLEAVE_DDA_DUMP=/nonexistent/dir/case1.bin CLEAVE_DDA_PCG=persistent run "$CLEAVE" --device cpu run "$case1" 1 3 block_jacobi bsr
expect_status 1 "an unwritable dump path fails the run"
expect_err "CLEAVE_DDA_DUMP: could not write /nonexistent/dir/case1.bin" "the unwritable path is named"

CLEAVE_DDA_DUMP="$tmp/hsbcsr.bin" CLEAVE_DDA_PCG=persistent run "$CLEAVE" --device cpu run "$case1" 1 3 block_jacobi hsbcsr
expect_status 1 "a dump in HSBCSR is refused"
expect_err 'run with spmv = "bsr"' "the HSBCSR refusal names spmv"

head -c 1000 "$tmp/case1.bin" >"$tmp/short.bin"
run "$CLEAVE_BUILD/dda_precond" cpu "$tmp/short.bin" 1
expect_status 2 "a cut-short dump is refused"
expect_err "is not a DDA system written by CLEAVE_DDA_DUMP" "the reader says what the file is not"
finish

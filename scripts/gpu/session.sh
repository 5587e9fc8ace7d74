#!/bin/sh
# One device-machine call: the CUDA test suite, compute-sanitizer over the
# GPU tests, and the benchmarks; logs under $OUT, a short table last. Arguments go to ctest
# (the install test needs the Debian -dev packages, which the GPU host lacks: -E cli/test_install).
root=$(cd "$(dirname "$0")/../.." && pwd)
sh "$root/scripts/gpu/unpack.sh"
out=${OUT:-/tmp}
# CLEAVE_PARTS: which parts to run (default all three; the suite and the sanitizer together take
# about 9 minutes on an H100, so a call near its 10-minute limit runs them separately)
parts=${CLEAVE_PARTS:-tests sanitizer bench}
has() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }
tests=0
if has tests; then
  sh "$root/scripts/gpu/test.sh" "$@" >"$out/tests.txt" 2>&1
  tests=$?
fi
cd "$root/.gpu/build" || exit 1
export LD_LIBRARY_PATH="$root/.gpu/lib:${LD_LIBRARY_PATH:-}" CLEAVE_DEVICE=cuda LUA_PATH="$root/tests/lua/?.lua;;" CLEAVE_SOURCE="$root"
san=0
has sanitizer && for t in test_parity test_field test_pipeline test_jit test_laws test_czm test_fe test_fpm test_dda; do
  CLEAVE_TEST_OUT=/tmp/san_$t compute-sanitizer --tool memcheck --leak-check full --report-api-errors no --error-exitcode 9 \
    ./cleave run "$root/tests/lua/$t.lua" >"$out/sanitizer_$t.txt" 2>&1 || san=$((san + 1))
done
# CLEAVE_BENCH: benchmark files, each with its arguments after colons (bench_czm.lua:plate), 240 s each
has bench && for b in ${CLEAVE_BENCH:-}; do
  file=${b%%:*} args=$(echo "$b" | cut -s -d: -f2- | tr ':' ' ')
  timeout 240 ./cleave run "$root/scripts/bench/$file" $args >"$out/bench_$(echo "$b" | tr ':' '_' | sed 's/\.lua//').txt" 2>&1
done
has tests && echo "== tests (exit $tests)" && grep -E "tests passed|Failed|\*\*\*" "$out/tests.txt"
has sanitizer && echo "== compute-sanitizer: $san of 9 runs reported errors" && grep -h "ERROR SUMMARY" "$out"/sanitizer_*.txt
for f in "$out"/bench_*.txt; do [ -e "$f" ] && echo "== $f" && cat "$f"; done
exit $tests

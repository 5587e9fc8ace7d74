# scripts/bench/bench_fpm.lua on a few hundred elements, CPU: every body has at least the elements
# asked (its grid once made a quarter of them), the J2 runs are in plastic flow at every sampled
# point, every run passes its energy balance (exit 0); with the kernel variants (cleave.fpm.kernel_variant),
# each variant's run is compared with the default build's (the CPU runs one loop: no difference).
. "$CLEAVE_SOURCE/tests/cli/lib.sh"

asked=400
run "$CLEAVE" --device cpu run "$CLEAVE_SOURCE/scripts/bench/bench_fpm.lua" $asked 3 f64 3.35e12 beam,hex,shell_j2,hex_j2 all
expect_status 0 "bench_fpm: every run's energy balance holds"
counts=$(grep -o ' [0-9][0-9]* el\(ements\|\.\) ' "$tmp/out" | awk '{print $1}')
[ -n "$counts" ] && echo "$counts" | awk -v asked=$asked '$1 < asked { bad = 1 } END { exit bad }' &&
  ok "bench_fpm: every body has >= $asked elements ($(echo $counts | tr '\n' ' '))" ||
  ko "bench_fpm: a body has fewer than the $asked elements asked ($(echo $counts | tr '\n' ' '))"
# J2 runs: shells 4 builds + gather, hexahedra 6 builds + the user law + gather; compared: 3 + 5 + 5
# builds (hex and hex_j2, equal on the CPU) and the two user-law runs (round-off apart: the bench
# refuses more than 1e-6, which the exit status checks)
flows=$(grep -c '100.0% of the integration points in plastic flow' "$tmp/out")
[ "$flows" -eq 13 ] && ok "bench_fpm: the 13 J2 runs are in plastic flow at every sampled point" ||
  ko "bench_fpm: $flows of the 13 J2 runs in plastic flow at every sampled point"
same=$(grep -c "displacements against the default build's: 0 of the largest" "$tmp/out")
[ "$same" -eq 13 ] && ok "bench_fpm: the 13 variant runs match the default build's displacements" ||
  ko "bench_fpm: $same of the 13 variant runs match the default build's displacements"
users=$(grep -c "as a user law: displacements against the default build's" "$tmp/out")
[ "$users" -eq 2 ] && ok "bench_fpm: the hexahedra's laws timed as user laws too (incremental state)" ||
  ko "bench_fpm: $users of the 2 user-law runs of hexahedra"
# a list of builds: those beside the default only (hex_j2's default lanes128, then the two named)
run "$CLEAVE" --device cpu run "$CLEAVE_SOURCE/scripts/bench/bench_fpm.lua" $asked 3 f64 3.35e12 hex_j2 lanes256,element
expect_status 0 "bench_fpm: a list of builds runs"
timed=$(grep -c '^hexahedra, J2 yielding, scatter, \(lanes128\|lanes256\|element\) ' "$tmp/out")
others=$(grep -c '^hexahedra, J2 yielding, scatter, \(lanes96\|lanes128x5\|element_lb\) ' "$tmp/out")
[ "$timed" -eq 3 ] && [ "$others" -eq 0 ] && ok "bench_fpm: the default and the 2 builds named, no other" ||
  ko "bench_fpm: $timed of the 3 builds asked timed, $others others"
run "$CLEAVE" --device cpu run "$CLEAVE_SOURCE/scripts/bench/bench_fpm.lua" $asked 3 f64 3.35e12 hex_j2 lanes64
expect_status 1 "bench_fpm: an unknown build is refused"
grep -q "argument 6 (variants).*lanes64" "$tmp/err" && ok "bench_fpm: the unknown build is named" ||
  ko "bench_fpm: the unknown build is not named"
finish

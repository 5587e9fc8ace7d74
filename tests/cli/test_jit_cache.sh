# The run-time compiler's disk cache across processes: a second process loads
# the entry from disk, a damaged entry is detected and rebuilt, concurrent
# processes compiling the same law leave one sound entry, `cleave info` shows
# the folder and its size, cleave.jit.clear_cache() empties it.
. "$CLEAVE_SOURCE/tests/cli/lib.sh"

export XDG_CACHE_HOME="$tmp/cache"
cat >"$tmp/law.lua" <<'LUA'
local cl = require "cleave"
local b = cl.pd.body { shape = cl.geom.rect { 0, 0.004, 0, 0.004 }, dx = 0.001,
  material = cl.pd.pmb { E = 1e9, rho = 1000 } }
local law = cl.jit.bond_force { source = "return c * s;", params = { c = b.c } }
local m = law:module(b.x, "lattice", "point")
b.u:assign(function(i) return 1e-6 * i, 0 end)
b.law = law
b:force_stage():run()
print(m.origin, string.format("%.6e", b.a:norm()))
LUA

run "$CLEAVE" --device cpu run "$tmp/law.lua"
expect_status 0 "first process"
expect_out "compiled" "the first process compiles"
norm=$(cut -f2 "$tmp/out")

run "$CLEAVE" --device cpu run "$tmp/law.lua"
expect_out "disk" "the second process loads the entry from disk"
expect_out "$norm" "with the same result"

entry=$(ls "$XDG_CACHE_HOME"/cleave/*.so)
printf 'damaged' >"$entry"
run "$CLEAVE" --device cpu run "$tmp/law.lua"
expect_status 0 "a damaged entry"
expect_out "compiled" "a damaged entry is rebuilt"
expect_out "$norm" "and gives the same result"

# two processes build the same bytes (else concurrent commits could pair one's entry with the
# other's checksum, and the entry they left would not load)
for k in 1 2; do XDG_CACHE_HOME="$tmp/own$k" "$CLEAVE" --device cpu run "$tmp/law.lua" >/dev/null 2>&1; done
cmp -s "$tmp"/own1/cleave/*.so "$tmp"/own2/cleave/*.so && ok "two processes build the same entry" ||
  ko "two processes' entries differ"

rm -rf "$XDG_CACHE_HOME"
for k in 1 2 3; do "$CLEAVE" --device cpu run "$tmp/law.lua" >"$tmp/par$k" 2>&1 & done
wait
[ "$(cat "$tmp"/par1 "$tmp"/par2 "$tmp"/par3 | grep -c "$norm")" -eq 3 ] && ok "three concurrent processes" || ko "concurrent processes: $(cat "$tmp"/par*)"
[ "$(ls "$XDG_CACHE_HOME"/cleave/*.so | wc -l)" -eq 1 ] && [ -z "$(ls "$XDG_CACHE_HOME"/cleave | grep '^tmp-')" ] &&
  ok "one entry, no temporaries left" || ko "cache after concurrent writes: $(ls "$XDG_CACHE_HOME"/cleave)"
run "$CLEAVE" --device cpu run "$tmp/law.lua"
expect_out "disk" "the entry they left loads"

run "$CLEAVE" info
expect_out "jit cache:     $XDG_CACHE_HOME/cleave (" "info shows the folder"
expect_no_err "error" "info runs"
grep -q "(0 B)" "$tmp/out" && ko "info shows a size" || ok "info shows a nonzero size"

run "$CLEAVE" -e 'require "cleave".jit.clear_cache()'
expect_status 0 "clear_cache"
[ -z "$(ls -A "$XDG_CACHE_HOME/cleave")" ] && ok "clear_cache empties the folder" || ko "left: $(ls "$XDG_CACHE_HOME/cleave")"

finish

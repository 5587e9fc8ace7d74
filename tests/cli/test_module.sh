# require "cleave" from Debian's stock lua5.4 interpreter, with the system's lpeg.
. "$CLEAVE_SOURCE/tests/cli/lib.sh"

if ! command -v lua5.4 >/dev/null 2>&1; then
  echo "lua5.4 not installed (scripts/setup.sh installs it)"
  exit 1
fi
run lua5.4 -e "package.cpath = '$CLEAVE_MODULE_DIR/?.so;' .. package.cpath
  local cl = require 'cleave'
  local f = cl.field { n = 5, value = 2 }
  print('module', cl.version, f:sum(), tostring(f))
  local m = cl.demo.wave { nx = 20, ny = 20, dx = 0.05 }
  m:run { steps = 10, progress = false }
  print('steps', m.step)
  print('lpeg', require('lpeg').match(require('lpeg').R('09')^1, '123'))"
expect_status 0 "require cleave from lua5.4"
expect_out "module	0." "module loads and reports its version"
expect_out "	10.0	field<f64, 5 x 1" "fields work through the module"
expect_out "steps	10" "embedded Lua parts work through the module"
expect_out "lpeg	4" "the system lpeg loads beside it"

# Ctrl-C under lua5.4, whose own handler only stops Lua code: a run stops at a step boundary
# (cl.run installs its handler for the run's duration), and the interpreter's handler is back
# afterwards (a plain Lua loop then stops with lua.c's "interrupted!").
lua5.4 -e "package.cpath = '$CLEAVE_MODULE_DIR/?.so;' .. package.cpath
  local cl = require 'cleave'
  local m = cl.demo.wave { nx = 20, ny = 20, dx = 0.05 }
  local ok, err = pcall(cl.run, { pipeline = m.pipeline, steps = 1e12, dt = m.dt, every = 100,
    progress = false, on_output = function(step)
      if step == 100 then io.stdout:write('running\\n'):flush() end
    end })
  io.stdout:write('stopped ', tostring(ok), ' ', tostring(err), '\\n'):flush()
  while true do end" >"$tmp/out" 2>"$tmp/err" &
pid=$!
# waits up to 20 s for TEXT in the output
wait_for() {
  i=0
  while [ $i -lt 200 ] && ! grep -qF -- "$1" "$tmp/out"; do sleep 0.1; i=$((i + 1)); done
}
wait_for running
kill -INT $pid
wait_for stopped
kill -INT $pid
(sleep 20 && kill -KILL $pid) >/dev/null 2>&1 & # never hang the suite
watchdog=$!
status=0
wait $pid || status=$?
kill $watchdog 2>/dev/null
expect_out "stopped false interrupted at step" "SIGINT stops a cl.run under lua5.4 at a step boundary"
expect_err "interrupted!" "lua5.4's own SIGINT handler is back after the run"
expect_status 1 "the interpreter ends on the second SIGINT"
finish

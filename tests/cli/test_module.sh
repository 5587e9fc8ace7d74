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
finish

# The cleave command: help, version, info, -e, run with arguments, errors,
# exit codes and trimmed tracebacks, --device and CLEAVE_DEVICE.
. "$CLEAVE_SOURCE/tests/cli/lib.sh"

run "$CLEAVE" --help
expect_status 0 "--help"
expect_out "run FILE.lua" "--help shows run"
expect_out "CLEAVE_DEVICE" "--help documents the environment"

run "$CLEAVE" --version
expect_out "cleave 0." "--version"

run "$CLEAVE" info
expect_status 0 "info"
for key in "backends:" "device:" "memory:" "jit cache:"; do expect_out "$key" "info shows $key"; done
if "$CLEAVE" -e 'os.exit(require"cleave".info().backends.cuda and 0 or 1)' 2>/dev/null; then
  expect_out "cuda runtime:" "info shows the CUDA runtime"
  expect_out "nvrtc:" "info shows NVRTC"
fi

run "$CLEAVE" -e 'print(1 + 2, require("cleave").device())'
expect_status 0 "-e"
expect_out "3" "-e prints"
run "$CLEAVE" -e 'print(#arg, arg[0], arg[1], arg[2], ...)' first "second arg"
expect_status 0 "-e with arguments"
expect_out "2	-e	first	second arg	first	second arg" "-e CODE a b: the code sees a b in arg and ..."

cat >"$tmp/args.lua" <<'LUA'
print("args", #arg, arg[1], arg[2], ...)
LUA
run "$CLEAVE" run "$tmp/args.lua" one two
expect_out "args	2	one	two	one	two" "script sees arg and ..."

cat >"$tmp/fails.lua" <<'LUA'
local cl = require "cleave"
local function build()
  return cl.field { n = 3, dtpye = "f32" }
end
build()
LUA
run "$CLEAVE" run "$tmp/fails.lua"
expect_status 1 "failing script"
expect_err "unknown argument 'dtpye'" "error names the misspelt key"
expect_err "(did you mean 'dtype'?) (valid: data, dtype, k, n, value)" "error suggests the nearest key and lists the valid ones"
expect_err "fails.lua:3:" "error points at the script line"
expect_err "stack traceback (your script):" "traceback header"
expect_err "fails.lua:5:" "traceback shows the caller line"
expect_no_err "[C]" "traceback trimmed of C frames"

run "$CLEAVE" run "$tmp/missing.lua"
expect_status 1 "missing script"
expect_err "missing.lua" "missing script named"

printf 'print("from stdin")\n' >"$tmp/stdin.lua"
status=0
"$CLEAVE" <"$tmp/stdin.lua" >"$tmp/out" 2>"$tmp/err" || status=$?
expect_out "from stdin" "script from a pipe"

run "$CLEAVE" frobnicate
expect_status 2 "unknown command"
run "$CLEAVE" --frob
expect_status 2 "unknown option"

run "$CLEAVE" --device cpu -e 'print(require"cleave".device())'
expect_out "cpu" "--device cpu"
run "$CLEAVE" --device
expect_status 2 "--device without a value"
expect_err "'--device' needs a value" "the missing value is named"
run "$CLEAVE" --device tpu -e 'print(1)'
expect_status 1 "--device tpu"
expect_err "unknown device 'tpu'" "unknown device named"
status=0
CLEAVE_DEVICE=tpu "$CLEAVE" -e 'print(1)' >"$tmp/out" 2>"$tmp/err" || status=$?
expect_status 1 "CLEAVE_DEVICE=tpu"
expect_err "CLEAVE_DEVICE=tpu" "the environment variable is named"

# Ctrl-C (SIGINT) in a script run stops at a step boundary, saves the checkpoint and exits 1
cat >"$tmp/long.lua" <<'LUA'
local cl = require "cleave"
local m = cl.demo.wave { nx = 300, ny = 300, dx = 0.01 }
m:run { steps = 1, progress = false }
io.stdout:write("running\n"); io.stdout:flush()
m:run { steps = 100000000, progress = false, output = { every = 1000000, checkpoint = arg[1] } }
LUA
status=0
"$CLEAVE" run "$tmp/long.lua" "$tmp/long.ckpt" >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 1 100); do grep -q running "$tmp/out" && break; sleep 0.1; done
sleep 0.5
kill -INT "$pid"
wait "$pid" || status=$?
expect_status 1 "SIGINT stops a script run"
expect_err "interrupted at step" "the stop is reported with its step"
run "$CLEAVE" -e "local cl = require 'cleave'
  local m = cl.demo.wave { nx = 300, ny = 300, dx = 0.01 }
  m:restore('$tmp/long.ckpt')
  assert(m.step > 1, 'steps saved: ' .. m.step)
  m:run { steps = 3, progress = false }
  print('resumed', m.step > 4)"
expect_out "resumed	true" "the checkpoint written on Ctrl-C resumes"

# the flagship example runs end to end (small size) and writes its outputs
mkdir -p "$tmp/flag" && cd "$tmp/flag" || exit 1
run "$CLEAVE" run "$CLEAVE_SOURCE/scripts/wave_demo.lua" 80 50
expect_status 0 "flagship example"
expect_out "relative change" "flagship prints the energy balance"
[ -s out/wave.pvd ] && [ -s out/wave.png ] && [ -s out/wave_energy.csv ] && ok "flagship outputs" || ko "flagship outputs"
cd - >/dev/null || exit 1

finish

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
expect_err "valid: n, k, dtype, value, data" "error lists the valid keys"
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
run "$CLEAVE" --device tpu -e 'print(1)'
expect_status 1 "--device tpu"
expect_err "unknown device 'tpu'" "unknown device named"
status=0
CLEAVE_DEVICE=tpu "$CLEAVE" -e 'print(1)' >"$tmp/out" 2>"$tmp/err" || status=$?
expect_status 1 "CLEAVE_DEVICE=tpu"
expect_err "CLEAVE_DEVICE=tpu" "the environment variable is named"

# the flagship example runs end to end (small size) and writes its outputs
mkdir -p "$tmp/flag" && cd "$tmp/flag" || exit 1
run "$CLEAVE" run "$CLEAVE_SOURCE/scripts/wave_demo.lua" 80 50
expect_status 0 "flagship example"
expect_out "relative change" "flagship prints the energy balance"
[ -s out/wave.pvd ] && [ -s out/wave.png ] && [ -s out/wave_energy.csv ] && ok "flagship outputs" || ko "flagship outputs"
cd - >/dev/null || exit 1

finish

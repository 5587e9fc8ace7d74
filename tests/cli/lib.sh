# Helpers for the command-line tests: run a command, then check its exit
# status and output. Each check prints PASS/FAIL; `finish` prints the totals.
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run CMD...: runs it, keeping status in $status, output in $tmp/out and $tmp/err
run() {
  status=0
  "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
}

ok() { passed=$((passed + 1)); echo "PASS $1"; }
ko() {
  failed=$((failed + 1))
  echo "FAIL $1"
  echo "  status: $status"
  sed 's/^/  stdout: /' "$tmp/out" | head -20
  sed 's/^/  stderr: /' "$tmp/err" | head -20
}

# expect_status N NAME
expect_status() { [ "$status" -eq "$1" ] && ok "$2 (exit $1)" || ko "$2: expected exit $1"; }
# expect_out TEXT NAME / expect_err TEXT NAME: fixed-string search
expect_out() { grep -qF -- "$1" "$tmp/out" && ok "$2" || ko "$2: stdout lacks '$1'"; }
expect_err() { grep -qF -- "$1" "$tmp/err" && ok "$2" || ko "$2: stderr lacks '$1'"; }
expect_no_err() { grep -qF -- "$1" "$tmp/err" && ko "$2: stderr has '$1'" || ok "$2"; }

finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}

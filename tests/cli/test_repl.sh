#!/bin/sh
# The REPL (`cleave` with no arguments on a terminal), driven in a detached
# tmux pane: banner, printing of expressions, multi-line input, errors, Tab
# completion, Ctrl-C at the prompt and during a long run, Ctrl-D, history.
# Environment: CLEAVE (the executable), CLEAVE_TEST_OUT (a writable folder).
set -u

: "${CLEAVE:?set CLEAVE to the cleave executable}"
POLL_SECONDS=20

fail() {
  echo "test_repl: FAIL: $*" >&2
  echo "--- pane ---" >&2
  pane >&2
  echo "--- end of pane (files kept in $tmp) ---" >&2
  exit 1
}

command -v tmux >/dev/null 2>&1 || { echo "test_repl: FAIL: tmux is required" >&2; exit 1; }

out=${CLEAVE_TEST_OUT:-${TMPDIR:-/tmp}}
mkdir -p "$out" || exit 1
tmp=$(mktemp -d "$out/repl.XXXXXX") || exit 1
socket=cleave_test_$$
passed=0
cleanup() {
  tmux -L "$socket" kill-server >/dev/null 2>&1
  rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$socket" # tmux leaves the socket file
  if [ "$passed" = 1 ]; then rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# The pane's program sees a private home and no user's readline or tmux setup.
mkdir -p "$tmp/home"
export HOME="$tmp/home" INPUTRC=/dev/null
unset TMUX

tm() { tmux -L "$socket" "$@"; }
pane() { tm capture-pane -p -J -S - -t repl 2>/dev/null; }
keys() { tm send-keys -t repl "$@" || fail "tmux send-keys $*"; }
type_text() { keys -l "$1"; }
type_line() { keys -l "$1"; keys Enter; }

# wait_for GREP_OPTIONS TEXT: polls the pane until grep finds TEXT
# (-xF: a whole line, -F: anywhere, -E: an extended regular expression).
wait_for() {
  tries=$((POLL_SECONDS * 10))
  until pane | grep -q "$1" -- "$2"; do
    tries=$((tries - 1))
    [ "$tries" -gt 0 ] || fail "no '$2' in the pane after ${POLL_SECONDS}s"
    sleep 0.1
  done
}
wait_line() { wait_for -xF "$1"; }
wait_text() { wait_for -F "$1"; }

# start_repl HISTORY_FILE: runs the REPL in a 150x50 pane; its exit status
# lands in $tmp/status. An empty HISTORY_FILE means the default (~/.cleave_history).
# The wrapping shell is in the terminal's foreground group too: it traps
# SIGINT so that Ctrl-C does not kill it (the REPL gets the default action).
start_repl() {
  rm -f "$tmp/status"
  tm -f /dev/null new-session -d -s repl -x 150 -y 50 \
    sh -c 'trap : INT; CLEAVE_HISTORY=$2 "$1"; echo $? > "$3"' repl "$CLEAVE" "$1" "$tmp/status" ||
    fail "cannot start tmux"
  wait_text "Ctrl-D exits"
}

# quit_repl: Ctrl-D at an empty prompt must end the program with status 0.
quit_repl() {
  keys C-d
  tries=$((POLL_SECONDS * 10))
  while [ ! -s "$tmp/status" ] || tm has-session -t repl 2>/dev/null; do
    tries=$((tries - 1))
    [ "$tries" -gt 0 ] || fail "Ctrl-D did not end the REPL"
    sleep 0.1
  done
  [ "$(cat "$tmp/status")" = 0 ] || fail "the REPL exited with status $(cat "$tmp/status") after Ctrl-D"
}

history_has() {
  grep -q -x -F -- "$2" "$1" || fail "history file $1 lacks the line '$2'"
}

# ---- a session with most features; its history file does not exist yet
hist="$tmp/history"
start_repl "$hist"
wait_text "cleave "
pane | grep -q -E "^cleave [0-9.]+ on [a-z]+ " || fail "banner 'cleave VERSION on DEVICE ...' missing"

type_line '1+2'
wait_line '3'

type_line 'cl.field{n=3}'
wait_text 'field<f64, 3 x 1, '

type_line 'for i=1,3 do'
wait_for -E '^>> ?$'
type_line 'print(i*10)'
type_line 'end'
wait_line '10'
wait_line '20'
wait_line '30'

type_line 'cl.field{nn=3}'
wait_text "unknown argument 'nn'"
type_line '"still" .. "_alive"'
wait_line 'still_alive'

type_text 'type(cl.io.cs'
keys Tab
wait_text '> type(cl.io.csv'
type_line ')'
wait_line 'function'

# internals (metatables, helpers shared between cleave's files) are not offered: M-? (readline's
# possible-completions) would list cl.jit.value_mt and cl.explicit_run beside the API names
type_text 'type(cl.jit.value'
keys M-?
type_line ')'
type_text 'type(cl.explicit'
keys M-?
type_line ')'
type_line '"completed_" .. "internals"'
wait_line 'completed_internals'
if pane | grep -qE 'value_mt|explicit_run'; then fail "Tab completion offered internals: $(pane | grep -E 'value_mt|explicit_run')"; fi

type_text 'half_typed_garbage'
wait_text '> half_typed_garbage'
keys C-c
wait_text 'half_typed_garbage^C'
type_line "print('after' .. '_ctrl_c')"
wait_line 'after_ctrl_c'

type_line 'm = cl.demo.wave{nx=400, ny=400, dx=0.01}'
type_line '"wave_ready_" .. m.nx'
wait_line 'wave_ready_400'
# a first step builds the kernels, so the Ctrl-C below lands inside the run loop
type_line '"warm_" .. m:run{steps=1}.steps'
wait_line 'warm_1'
type_text 'm:ru'
keys Tab
wait_text '> m:run'
type_line '{steps=10000000}'
sleep 1
keys C-c
wait_text 'interrupted at step'
type_line 'print(m.step > 0 and m.step < 10000000)'
wait_line 'true'
type_line 's = m.step'
type_line 'm:run{steps=5}'
type_line '"delta=" .. (m.step - s)'
wait_line 'delta=5'

quit_repl
history_has "$hist" '1+2'
history_has "$hist" 'for i=1,3 do'
history_has "$hist" 'print(i*10)'
history_has "$hist" 'type(cl.io.csv)'
history_has "$hist" 'm:run{steps=5}'
if grep -q half_typed_garbage "$hist"; then fail "a line cancelled with Ctrl-C went into the history"; fi

# ---- the history is read back at the start (Up recalls the last line)
start_repl "$hist"
keys Up
wait_text '> "delta=" .. (m.step - s)'
keys C-u
type_line '40+2'
wait_line '42'
quit_repl

# ---- the default history file is ~/.cleave_history
start_repl ""
type_line '6*9'
wait_line '54'
quit_repl
history_has "$HOME/.cleave_history" '6*9'

# ---- an unusable history file is no error
start_repl "$tmp/no/such/folder/history"
type_line '7*11'
wait_line '77'
quit_repl

passed=1
echo "test_repl: all checks passed"

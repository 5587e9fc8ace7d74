# The C embedding example (scripts/embed/host.c) runs a model through the
# public C API (libcleave.so) and reads a field back; a script's os.exit does
# not end it.
. "$CLEAVE_SOURCE/tests/cli/lib.sh"

run "$EMBED_HOST" cpu
expect_status 0 "embed_host on cpu"
expect_out "device: cpu" "host chose the cpu"
expect_out "model.u: 3072 x 1 f64, max |u| = " "host read the field back"
expect_out "error reported:" "errors come back as messages"
expect_out "cleave_missing_function" "the message names the failing call"
expect_out "os.exit reported: script called os.exit: (string):1: os.exit(3): the script stopped here" \
  "os.exit in a script stops the script, not the host"

run "$EMBED_HOST" tpu
expect_status 1 "embed_host with an unknown device"
expect_err "unknown device 'tpu'" "the host gets the reason"
finish

#!/usr/bin/env bash
# `berth run` exits with the command's own status, and leaves the workspace ready again.
. "$(dirname "$0")/common.sh"
make_repo app
berth new task >/dev/null
berth run task -- true
not 1 berth run task -- false
not 3 berth run task -- sh -c 'exit 3'
not 42 berth run task -- sh -c 'echo out; echo err >&2; exit 42' >/dev/null
assert_eq "$(cat "$TMPDIR/not.out")" out "the command's stdout"
assert_eq "$(last_stderr)" err "the command's stderr"
not 255 berth run task -- sh -c 'exit 255'
# A command that cannot start: 127, like a shell.
not 127 berth run task -- ./no-such-command
assert_eq "$(berth --json status task | jq -r .state)" ready "state"
# --json: the result document follows the command's own output.
out=$(not 7 berth --json run task -- sh -c 'echo from-the-command; exit 7')
assert_eq "$(head -1 <<<"$out")" from-the-command "first line"
assert_eq "$(tail -n +2 <<<"$out" | jq -r '.exit_status, .timed_out, .name' | tr '\n' ' ')" \
  "7 false task " "result document"

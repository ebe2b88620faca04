#!/usr/bin/env bash
# fork TASK -n N (no command): Ctrl-C while the attempts are being made lets their creation finish
# and the fork be recorded (exit 130, a warning): every attempt ready and of the fork, so
# `discard TASK` takes them all and the name works again at once. (Killed half-way, the fork
# left attempts no record named: `discard TASK` said not_found, `fork TASK` said name_taken.)
. "$(dirname "$0")/common.sh"
make_repo app
hold_checkouts '*.held'
echo data >file.held
git add -A && git commit -qm held

setsid "$BERTH_BIN" --json -c pool.size=0 fork held -n 3 >"$T/out" 2>"$T/err" &
pid=$!
ctrl_c_while_held "$pid"
assert_eq "$CTRL_C_STATUS" 130 "fork's exit status (stderr: $(cat "$T/err"))"
assert_contains "$(cat "$T/err")" "interrupted: the 3 attempts were made and recorded"
assert_eq "$(jq -r '[.workspaces[].name] | join(",")' "$T/out")" "held-1,held-2,held-3"
list=$(berth --json list)
assert_eq "$(jq -r '[.[] | select(.fork == "held") | .name + ":" + .state] | join(",")' <<<"$list")" \
  "held-1:ready,held-2:ready,held-3:ready"
assert_eq "$(cat "$(berth path held-3)/file.held")" data
berth discard held >/dev/null
assert_eq "$(berth --json list | jq length)" 0 "workspaces after discard held"
berth -c pool.size=0 fork held -n 2 >/dev/null
assert_eq "$(berth --json list | jq -r '[.[].name] | join(",")')" "held-1,held-2"

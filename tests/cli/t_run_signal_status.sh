#!/usr/bin/env bash
# A command killed by signal N makes `berth run` exit 128+N, like a shell.
. "$(dirname "$0")/common.sh"
make_repo app
berth new task >/dev/null
not 143 berth run task -- sh -c 'kill -TERM $$'
not 137 berth run task -- sh -c 'kill -KILL $$'
not 138 berth run task -- sh -c 'kill -USR1 $$'
not 134 berth run task -- sh -c 'kill -ABRT $$'
out=$(not 143 berth --json run task -- sh -c 'kill -TERM $$')
assert_eq "$(jq -r .exit_status <<<"$out")" 143 "exit_status"
# A signal sent to berth reaches the command (its whole group) and comes back as its status.
"$BERTH_BIN" run task --env "T=$T" -- sh -c 'trap "echo got-term >$T/term; exit 9" TERM; touch $T/started; sleep 30 & wait' &
pid=$!
wait_for_file "$T/started"
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
assert_eq "$status" 9 "status after TERM to berth"
assert_eq "$(cat "$T/term")" got-term "the command got TERM"
assert_eq "$(berth --json status task | jq -r .state)" ready "state"

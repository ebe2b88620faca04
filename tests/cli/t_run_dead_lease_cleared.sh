#!/usr/bin/env bash
# A lease whose holder died (berth kill -9'd mid-run) is cleared by the next berth command: the
# workspace is ready, its lock reason no longer names the dead run, and it can be run or discarded.
. "$(dirname "$0")/common.sh"
make_repo app
berth new task >/dev/null
ws=$(berth path task)
"$BERTH_BIN" run task --env "T=$T" -- sh -c 'echo $$ >$T/child; touch $T/started; exec sleep 600' &
pid=$!
wait_for_file "$T/started"
{
  kill -9 "$pid"
  wait "$pid" || true
} 2>/dev/null
kill "$(cat "$T/child")" # the command, left running in its own group
# The record still says busy, naming a pid that is gone.
assert_eq "$(jq -r .state "$(git rev-parse --git-common-dir)/berth/workspaces/task.json")" busy "record"
assert_eq "$(berth --json list | jq -r '.[0].state')" ready "state after the next command"
reason=$(git worktree list --porcelain | grep -A4 "^worktree $ws\$" | sed -n 's/^locked //p')
assert_not_contains "$reason" "pid $pid"
berth run task -- true
# And a dead lease does not block `run` either, without a `list` in between.
"$BERTH_BIN" run task --env "T=$T" -- sh -c 'echo $$ >$T/child; touch $T/started2; exec sleep 600' &
pid=$!
wait_for_file "$T/started2"
{
  kill -9 "$pid"
  wait "$pid" || true
} 2>/dev/null
kill "$(cat "$T/child")"
assert_eq "$(berth run task -- echo again)" again "run after a dead lease"
berth discard task >/dev/null

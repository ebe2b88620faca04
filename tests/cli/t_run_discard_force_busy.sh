#!/usr/bin/env bash
# `discard --force` takes a busy workspace: it stops the run holding it (and the run's command)
# first, its snapshot is still taken, and the run does not bring the workspace back.
. "$(dirname "$0")/common.sh"
make_repo app
berth new task >/dev/null
ws=$(berth path task)
"$BERTH_BIN" run task --env "T=$T" -- sh -c 'echo $$ >$T/cmd.pid; echo wip >wip.txt; touch $T/started; while [ ! -e $T/release ]; do sleep 0.05; done' &
pid=$!
wait_for_file "$T/started"
not 5 berth discard task
berth discard --force task >/dev/null
# The run and its command were stopped before the workspace went (no release was ever given).
cmd=$(cat "$T/cmd.pid")
for _ in $(seq 100); do kill -0 "$cmd" 2>/dev/null || break; sleep 0.05; done
not 1 kill -0 "$cmd"
! kill -0 "$pid" 2>/dev/null || { sleep 0.5; ! kill -0 "$pid" 2>/dev/null; }
not 4 berth path task
git rev-parse -q --verify refs/heads/berth/task && false
# The work is in the trash.
grep -q . <<<"$(git for-each-ref --format='%(refname)' 'refs/berth/trash/task/')"
touch "$T/release"
wait "$pid" || true
not 4 berth path task
berth list >/dev/null

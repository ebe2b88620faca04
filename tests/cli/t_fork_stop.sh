#!/usr/bin/env bash
# fork --timeout and Ctrl-C stop every attempt's whole process group (a grandchild included),
# keep the attempts' work, and say so in fork.json; pick refuses while attempts run.
. "$(dirname "$0")/common.sh"
make_repo app
forks=$(git rev-parse --path-format=absolute --git-common-dir)/berth/forks
# Each attempt writes its work, starts a grandchild, records its pid, then waits long.
cmd='echo work >work.txt; sleep 60 & echo $! >"$PIDS/$BERTH_ATTEMPT.pid"; wait'
export PIDS=$T/pids
mkdir -p "$PIDS"
# Gone or a zombie (an orphan waits for init to reap it; it runs no more).
running() { [[ -e /proc/$1 ]] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }

start=$SECONDS
out=$(not 1 berth --json fork slow -n 2 --timeout 1 -- sh -c "$cmd")
(( SECONDS - start < 15 ))
assert_eq "$(jq -r '[.fork.runs[].state] | join(",")' <<<"$out")" "timed_out,timed_out"
assert_eq "$(jq -r '[.runs[].state] | join(",")' "$forks/slow/fork.json")" "timed_out,timed_out"
for i in 1 2; do
  not 1 running "$(cat "$PIDS/$i.pid")"
  test -f "$(jq -r ".workspaces[$((i - 1))].path" <<<"$out")/work.txt"
done

# Ctrl-C: SIGINT to the fork process.
rm -f "$PIDS"/*
"$BERTH_BIN" --json fork int -n 2 -- sh -c "$cmd" >"$T/int.out" 2>"$T/int.err" &
fork_pid=$!
for i in 1 2; do wait_for_file "$PIDS/$i.pid"; done
# While the commands run, pick is refused and changes nothing.
ref=$(git rev-parse HEAD)
expect_error busy 5 berth --json pick int-1 >/dev/null
assert_eq "$(git rev-parse HEAD)" "$ref"
assert_eq "$(berth --json list | jq '[.[] | select(.fork == "int")] | length')" 2
kill -INT "$fork_pid"
status=0
wait "$fork_pid" || status=$?
assert_eq "$status" 130 "fork's exit status after SIGINT"
assert_eq "$(jq -r '[.fork.runs[].state] | join(",")' "$T/int.out")" "interrupted,interrupted"
for i in 1 2; do
  not 1 running "$(cat "$PIDS/$i.pid")"
  test -f "$(berth path "int-$i")/work.txt"
done
grep -q '"type":"attempt_started"' "$T/int.err"

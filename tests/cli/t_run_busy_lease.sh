#!/usr/bin/env bash
# While a run holds a workspace it is busy: a second `run` and a `discard` are refused (exit 5,
# busy) and change nothing; the worktree's lock reason names the holder; afterwards it is ready.
. "$(dirname "$0")/common.sh"
make_repo app
berth new task >/dev/null
ws=$(berth path task)
"$BERTH_BIN" run task --env "T=$T" -- sh -c 'touch $T/started; while [ ! -e $T/release ]; do sleep 0.05; done' &
pid=$!
wait_for_file "$T/started"
assert_eq "$(berth --json status task | jq -r .state)" busy "state while running"
reason=$(git worktree list --porcelain | grep -A4 "^worktree $ws\$" | sed -n 's/^locked //p')
assert_contains "$reason" "pid $pid"
before=$(fingerprint)
out=$(expect_error busy 5 berth --json run task -- touch second-run)
assert_contains "$(jq -r .error.message <<<"$out")" "pid $pid"
expect_error busy 5 berth --json discard task >/dev/null
expect_error busy 5 berth --json run --sandbox=best-effort task -- true >/dev/null
assert_unchanged "$before"
test ! -e "$ws/second-run"
touch "$T/release"
wait "$pid"
assert_eq "$(berth --json status task | jq -r .state)" ready "state afterwards"
reason=$(git worktree list --porcelain | grep -A4 "^worktree $ws\$" | sed -n 's/^locked //p')
assert_not_contains "$reason" "pid $pid"
berth run task -- true

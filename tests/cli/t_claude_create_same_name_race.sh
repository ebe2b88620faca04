#!/usr/bin/env bash
# Two WorktreeCreate hooks with the same name at once (the second arrives while the first is still
# checking out): the second waits for the first and hands over the same workspace; both exit 0
# with the same path, and there is one workspace.
. "$(dirname "$0")/common.sh"
make_repo app
commit_file held.txt content 'a file whose checkout waits'
hold_checkouts held.txt
git add .gitattributes && git commit -qm 'hold'
input=$(jq -n --arg cwd "$PWD" '{session_id: "s", cwd: $cwd, hook_event_name: "WorktreeCreate", name: "same"}')
"$BERTH_BIN" hook claude worktree-create <<<"$input" >"$T/a.out" 2>"$T/a.err" &
a=$!
wait_for_file "$T/checkout-started"
"$BERTH_BIN" hook claude worktree-create <<<"$input" >"$T/b.out" 2>"$T/b.err" &
b=$!
sleep 1
touch "$T/release"
status=0
wait "$a" || status=$?
assert_eq "$status" 0 "first hook's exit (stderr: $(cat "$T/a.err"))"
wait "$b" || status=$?
assert_eq "$status" 0 "second hook's exit (stderr: $(cat "$T/b.err"))"
assert_eq "$(cat "$T/b.out")" "$(cat "$T/a.out")" "same path"
assert_eq "$(realpath "$(berth path same)")" "$(cat "$T/a.out")"
assert_contains "$(cat "$T/b.err")" "reusing workspace 'same'"
assert_eq "$(berth --json list | jq length)" 1
assert_eq "$(cat "$(cat "$T/a.out")/held.txt")" content
echo "ok: one workspace for two simultaneous hooks"

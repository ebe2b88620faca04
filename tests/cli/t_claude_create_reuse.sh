#!/usr/bin/env bash
# WorktreeCreate for a name that already is a live berth workspace (Claude Code resuming a
# session, or the same name asked for again): that workspace is handed over as it is, same path,
# its work untouched, nothing new made.
. "$(dirname "$0")/common.sh"
make_repo app
input=$(jq -n --arg cwd "$PWD" '{session_id: "s1", transcript_path: "/t.jsonl", cwd: $cwd, hook_event_name: "WorktreeCreate", name: "fix-login"}')
first=$(berth hook claude worktree-create <<<"$input" 2>/dev/null | tail -n 1)
echo work >"$first/work.txt"
before=$(fingerprint)
second=$(berth hook claude worktree-create <<<"$input" 2>"$T/err" | tail -n 1)
assert_eq "$second" "$first" "same path"
assert_contains "$(cat "$T/err")" "reusing workspace 'fix-login'"
assert_eq "$(cat "$second/work.txt")" work
assert_eq "$(fingerprint)" "$before" "nothing changed"
# A workspace the user made with `berth new` is reused too, and keeps its owner.
ws=$(berth new --owner me mine 2>/dev/null)
doc=$(jq '.name = "mine"' <<<"$input" | berth --json hook claude worktree-create 2>/dev/null)
assert_eq "$(jq -r '.outcome + " " + .owner + " " + (.setup | tostring)' <<<"$doc")" "reused me null"
assert_eq "$(jq -r .path <<<"$doc")" "$(realpath "$ws")"
assert_eq "$(berth --json list | jq length)" 2
echo "ok: reused $first"

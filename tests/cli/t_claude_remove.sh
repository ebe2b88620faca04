#!/usr/bin/env bash
# Claude Code's WorktreeRemove hook, fed the JSON Claude Code sends: a berth workspace with unsaved
# work (a commit, an edit, an untracked file) is discarded recoverably: its snapshot is in the
# trash and `berth restore` brings the work back. A path that is gone, or that is not a berth
# workspace (a plain folder, the user's checkout, a worktree berth did not make), exits 0 and is
# left as it is. A busy workspace is refused as `discard` refuses it (busy, exit 5).
. "$(dirname "$0")/common.sh"
make_repo app
remove_input() { jq -n --arg cwd "$T/app" --arg p "$1" '{session_id: "s1", transcript_path: "/t.jsonl", cwd: $cwd, hook_event_name: "WorktreeRemove", worktree_path: $p}'; }
create_input=$(jq -n --arg cwd "$T/app" '{session_id: "s1", cwd: $cwd, hook_event_name: "WorktreeCreate", name: "task"}')
ws=$(berth hook claude worktree-create <<<"$create_input" 2>/dev/null | tail -n 1)
(cd "$ws" && commit_file feature.c 'int feature;' 'agent commit')
echo edited >>"$ws/README.md"
echo untracked >"$ws/notes.txt"
digest=$(tree_digest "$ws")

out=$(berth hook claude worktree-remove <<<"$(remove_input "$ws")" 2>"$T/err")
assert_eq "$out" "" "stdout"
assert_contains "$(cat "$T/err")" "discarded workspace 'task' (saved as refs/berth/trash/task/"
[[ ! -e $ws ]] || { echo "the workspace is still there" >&2; exit 1; }
snaps=$(berth --json restore --list task)
assert_eq "$(jq length <<<"$snaps")" 1 "snapshots of task"
assert_eq "$(jq -r '.[0].owner' <<<"$snaps")" "claude:s1"
back=$(berth restore task 2>/dev/null)
assert_eq "$(tree_digest "$back")" "$digest" "the work is back"
assert_eq "$(git -C "$back" log -1 --format=%s)" "agent commit"

# --json: the document, with the discard and its snapshot.
doc=$(berth --json hook claude worktree-remove <<<"$(remove_input "$back")" 2>/dev/null)
assert_eq "$(jq -r '.outcome + " " + .name' <<<"$doc")" "discarded task"
assert_eq "$(jq -r '.discarded.snapshot.ref' <<<"$doc" | cut -d/ -f1-4)" refs/berth/trash/task

# Gone: nothing to do, exit 0.
doc=$(berth --json hook claude worktree-remove <<<"$(remove_input "$back")")
assert_eq "$(jq -r '.outcome + " " + (.discarded | tostring)' <<<"$doc")" "gone null"
berth hook claude worktree-remove <<<"$(remove_input "$T/never/was")" 2>/dev/null

# Gone by hand (rm -rf) while berth's record still names it: the record does not linger as
# "missing"; the branch's commits go to the trash, as `berth discard` keeps them.
ws=$(berth hook claude worktree-create <<<"$(jq '.name = "byhand"' <<<"$create_input")" 2>/dev/null | tail -n 1)
(cd "$ws" && commit_file byhand.txt kept 'kept commit')
rm -rf "$ws"
doc=$(berth --json hook claude worktree-remove <<<"$(remove_input "$ws")")
assert_eq "$(jq -r '.outcome + " " + .name' <<<"$doc")" "discarded byhand"
assert_eq "$(berth --json list | jq '[.[] | select(.name == "byhand")] | length')" 0
snap=$(berth --json restore --list byhand | jq -r '.[0].ref')
assert_eq "$(git show "$snap:byhand.txt")" kept

# Not berth's: left exactly as it is.
mkdir -p "$T/plain" && echo mine >"$T/plain/file.txt"
git worktree add -q "$T/theirs" -b theirs
echo dirty >"$T/theirs/dirty.txt"
keep=$(berth new keep 2>/dev/null)
before=$(fingerprint)
for p in "$T/plain" "$T/app" "$T/theirs" "$T/app/src" "$keep/src"; do
  doc=$(berth --json hook claude worktree-remove <<<"$(remove_input "$p")")
  assert_eq "$(jq -r .outcome <<<"$doc")" not_berth "outcome for $p"
done
assert_eq "$(fingerprint)" "$before" "nothing changed"
assert_eq "$(cat "$T/plain/file.txt")" mine
assert_eq "$(cat "$T/theirs/dirty.txt")" dirty

# Busy (a run holds it): refused, nothing changed.
"$BERTH_BIN" run keep --env "T=$T" -- sh -c 'touch $T/started; while [ ! -e $T/release ]; do sleep 0.05; done' &
pid=$!
wait_for_file "$T/started"
before=$(fingerprint)
not 5 berth hook claude worktree-remove <<<"$(remove_input "$keep")" >/dev/null
assert_contains "$(last_stderr)" "[busy]"
assert_eq "$(fingerprint)" "$before" "nothing changed by a busy refusal"
touch "$T/release"
wait "$pid"
echo "ok: removed with a snapshot, restored; gone and foreign paths left alone"

# Work inside a submodule of a workspace (a commit, uncommitted edits, staged and untracked
# files) is named by diff and status, kept by discard and brought back by restore byte for byte,
# the submodule on its new commit, with its branch and its staged state.
. "$(dirname "$0")/common.sh"
make_repo_with_submodule
ws=$(berth new t)

# Uncommitted edits and untracked files only: named, counted, unsaved.
cd "$ws/third_party/x"
echo edit >>lib.c
echo new >untracked.txt
cd "$T/app"
json=$(berth --json status t)
assert_eq "$(jq -c '[.dirty, .changes.modified]' <<<"$json")" '[true,1]' "status counts the submodule"
assert_eq "$(berth diff t --name-only 2>/dev/null)" third_party/x "diff --name-only names it"
json=$(berth --json diff t)
assert_eq "$(jq -c '.nested' <<<"$json")" \
  '[{"kind":"submodule","modified":true,"new_commit":false,"path":"third_party/x","untracked":true}]'
assert_contains "$(berth diff t --stat)" "submodule third_party/x: uncommitted changes, untracked files"
# Discarded like that (another workspace: an untracked file only), it is unsaved work, kept.
ws2=$(berth new u)
echo only >"$ws2/third_party/x/only.txt"
json=$(berth --json discard u)
assert_eq "$(jq .unsaved_work <<<"$json")" true "an untracked file in a submodule is unsaved work"
berth restore u >/dev/null 2>&1
assert_eq "$(cat "$ws2/third_party/x/only.txt")" only

# A commit on its own branch, then more work on top.
cd "$ws/third_party/x"
git checkout -q -b agent
git commit -qam 'agent commit in the submodule'
sub_commit=$(git rev-parse HEAD)
echo staged >staged.txt && git add staged.txt
echo more >>lib.c
printf 'raw\r\n' >untracked.txt
files=$(tree_digest "$ws/third_party/x")
sub_status=$(git status --porcelain=v2 --branch --untracked-files=all)
sub_staged=$(git diff --cached --binary)
cd "$T/app"
json=$(berth --json diff t)
assert_eq "$(jq -c '.nested[0] | [.new_commit, .modified, .untracked]' <<<"$json")" '[true,true,true]'

json=$(berth --json discard t)
assert_eq "$(jq .unsaved_work <<<"$json")" true "discard says there was unsaved work"
[[ ! -e $ws ]]
# The submodule's commit is kept in the project's object database, reachable from the trash.
git cat-file -e "$sub_commit^{commit}"
ref=$(jq -r .snapshot.ref <<<"$json")
assert_contains "$(git rev-list "$ref")" "$sub_commit"

# The trash's list says the snapshot holds submodule work (its file counts are the project's).
assert_contains "$(berth restore --list)" "0 file(s), 0 B + submodule work"

berth restore t >/dev/null 2>"$TMPDIR/restore.err" || { cat "$TMPDIR/restore.err" >&2; false; }
cd "$ws/third_party/x"
assert_eq "$(tree_digest "$ws/third_party/x")" "$files" "submodule files"
assert_eq "$(git rev-parse HEAD)" "$sub_commit" "submodule HEAD"
assert_eq "$(git symbolic-ref HEAD)" refs/heads/agent "submodule branch"
assert_eq "$(git status --porcelain=v2 --branch --untracked-files=all)" "$sub_status" "submodule status"
assert_eq "$(git diff --cached --binary)" "$sub_staged" "submodule staged changes"

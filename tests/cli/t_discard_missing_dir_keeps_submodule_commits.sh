# A workspace whose directory the user deleted (rm -rf) still has its submodules' module
# repositories in its admin dir, and commits made inside a submodule exist only there: discard
# keeps them (a commits-only snapshot with a nested record: refs, HEAD, history), says there was
# unsaved work (--no-trash is refused), `restore --list` shows the nested entry, and restore
# brings the submodule back at the agent's commit, on its branch, with its history.
. "$(dirname "$0")/common.sh"
make_repo_with_submodule

# A submodule untouched: nothing of its own to keep, no nested record, nothing unsaved.
ws=$(berth new plain)
rm -rf "$ws"
json=$(berth --json discard plain 2>/dev/null)
assert_eq "$(jq -c '[.unsaved_work, .snapshot.nested]' <<<"$json")" '[false,null]' "nothing of its own"

ws=$(berth new t)
cd "$ws/third_party/x"
git checkout -q -b agent
commit_file agent1.c 'int a1;' 'agent commit 1'
commit_file agent2.c 'int a2;' 'agent commit 2'
sub_commit=$(git rev-parse HEAD)
sub_log=$(git log --format='%H %s' HEAD)
cd "$T/app"
rm -rf "$ws"

# --no-trash would lose them: refused as unsaved work, nothing changed.
before=$(fingerprint)
expect_error unsaved_work 5 berth --json discard --no-trash t >/dev/null
assert_eq "$(fingerprint)" "$before" "a refused --no-trash changes nothing"

json=$(berth --json discard t 2>/dev/null)
assert_eq "$(jq .unsaved_work <<<"$json")" true "the submodule's commits are unsaved work"
assert_contains "$(jq -r '.warnings[]' <<<"$json")" "only its commits were saved"
ref=$(jq -r .snapshot.ref <<<"$json")
[[ -n $(jq -r .snapshot.nested <<<"$json") ]]
# The admin dir (and the module repository in it) is gone; the commits are in the project's
# object database, reachable from the trash ref.
[[ ! -e $(git rev-parse --git-common-dir)/worktrees/t ]]
assert_contains "$(git rev-list "$ref")" "$sub_commit"
git gc -q --prune=now
git cat-file -e "$sub_commit^{commit}"

# restore --list shows the snapshot with its nested entry.
list=$(berth --json restore --list)
assert_eq "$(jq -r --arg r "$ref" '.[] | select(.ref == $r) | .nested' <<<"$list")" \
  "$(jq -r .snapshot.nested <<<"$json")" "restore --list names the nested record"

ws=$(berth restore t 2>/dev/null)
cd "$ws/third_party/x"
assert_eq "$(git rev-parse HEAD)" "$sub_commit" "submodule at the agent's commit"
assert_eq "$(git symbolic-ref HEAD)" refs/heads/agent "on the agent's branch"
assert_eq "$(git log --format='%H %s' HEAD)" "$sub_log" "with its history"
assert_eq "$(cat agent2.c)" 'int a2;' "its files"
assert_eq "$(git status --porcelain)" "" "clean"

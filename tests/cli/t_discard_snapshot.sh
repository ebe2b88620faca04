# discard keeps one snapshot commit at refs/berth/trash/NAME/<unix-time>, then removes the
# worktree, the branch and the record; the user's checkout is untouched.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new fix)
cd "$ws"
commit_file fix.c "int fixed;"
echo edit >>README.md
echo new >notes.txt
cd "$T/app"
main_before=$(tree_digest .)$(git ls-files -s | sha256sum)$(git status --porcelain)

t0=$(date +%s)
out=$(berth discard fix)
t1=$(date +%s)
assert_contains "$out" "berth restore fix"

ref=$(git for-each-ref --format='%(refname)' refs/berth/trash/)
[[ $ref =~ ^refs/berth/trash/fix/([0-9]+)$ ]]
(( BASH_REMATCH[1] >= t0 && BASH_REMATCH[1] <= t1 ))
# The snapshot holds the branch's commits and the uncommitted and untracked files.
assert_eq "$(git show "$ref:fix.c")" "int fixed;"
assert_eq "$(git show "$ref:notes.txt")" new
assert_eq "$(git show "$ref:README.md" | tail -1)" edit
assert_contains "$(git log --format=%s "$ref")" "change fix.c"

# Worktree, branch, record and directory are gone.
[[ ! -e $ws ]]
git worktree list --porcelain | { ! grep -c "$ws" >/dev/null; }
not 1 git rev-parse --verify -q refs/heads/berth/fix >/dev/null
[[ ! -e .git/berth/workspaces/fix.json && ! -e .git/worktrees/fix ]]
assert_eq "$(berth --json list)" "[]"
assert_eq "$(find "$(dirname "$ws")" -mindepth 1 -not -name .trash)" ""
assert_eq "$(find "$(dirname "$ws")/.trash" -mindepth 1 2>/dev/null)" ""
assert_eq "$(tree_digest .)$(git ls-files -s | sha256sum)$(git status --porcelain)" "$main_before" "the checkout"

# --json tells the same.
berth new other >/dev/null
json=$(berth --json discard other)
[[ $(jq -r .snapshot.ref <<<"$json") == refs/berth/trash/other/* ]]
assert_eq "$(jq -r .unsaved_work <<<"$json")" false
expect_error not_found 4 berth --json discard other >/dev/null

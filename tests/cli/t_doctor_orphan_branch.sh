# A `berth/NAME` branch that no workspace, worktree or snapshot accounts for blocks the name (`new`
# and `restore` fail with branch_exists): doctor reports it (`orphan_branch`); `--repair` deletes
# it only when the trash keeps its commits; one with commits nothing else keeps stays, named.
. "$(dirname "$0")/common.sh"
make_repo app 5
ws=$(berth new x)
(cd "$ws" && commit_file a.txt agent)
tip=$(git rev-parse berth/x)
berth discard x >/dev/null 2>&1
git branch berth/x "$tip" # what a discard killed before its branch deletion left
expect_error branch_exists 1 berth --json new x >/dev/null
out=$(not 1 berth --json doctor)
assert_eq "$(jq -r '.problems[] | select(.code == "orphan_branch") | .name' <<<"$out")" x
berth doctor --repair >/dev/null
assert_eq "$(git for-each-ref refs/heads/berth/x)" ""
berth doctor >/dev/null
assert_eq "$(cat "$(berth restore x)/a.txt")" agent

# Commits the trash does not keep: reported, kept.
git branch berth/mine "$(git commit-tree -p HEAD -m mine "HEAD^{tree}")"
not 1 berth doctor --repair >/dev/null
assert_eq "$(git for-each-ref --format='%(refname)' refs/heads/berth/mine)" refs/heads/berth/mine
out=$(not 1 berth --json doctor)
assert_contains "$(jq -r '.problems[] | select(.code == "orphan_branch") | .message' <<<"$out")" "berth/mine"

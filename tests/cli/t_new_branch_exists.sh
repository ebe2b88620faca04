# The workspace's branch already exists (or is checked out elsewhere): branch_exists, nothing
# changed, the branch untouched.
. "$(dirname "$0")/common.sh"
make_repo app
commit_file extra.txt one
git branch berth/x HEAD~1
git worktree add -q -b berth/y "$T/y-checkout"
before=$(fingerprint)

out=$(expect_error branch_exists 1 berth --json new x)
assert_contains "$(jq -r .error.message <<<"$out")" "berth/x"
assert_eq "$(git rev-parse berth/x)" "$(git rev-parse HEAD~1)"

out=$(expect_error branch_exists 1 berth --json new y)
assert_contains "$(jq -r .error.message <<<"$out")" "checked out"
assert_unchanged "$before"

# Another prefix avoids the clash.
ws=$(berth -c branch_prefix=agents/ new x)
assert_eq "$(git -C "$ws" symbolic-ref --short HEAD)" agents/x

# A branch named `berth` (refs/heads/berth) blocks every `berth/*` branch (git stores refs as
# paths), and a `berth/q/deeper` blocks `berth/q`. new, restore and a pooled new used to fail with
# git_failed and git's "cannot lock ref"; now branch_exists names the blocking branch, nothing
# changed.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"

make_repo app
ws=$(berth new x)
echo work >"$ws/work.txt"
berth discard x >/dev/null
git branch berth

before=$(fingerprint)
out=$(expect_error branch_exists 1 berth --json new y)
assert_contains "$(jq -r .error.message <<<"$out")" "'berth'"
assert_contains "$(jq -r .error.hint <<<"$out")" "git branch -m berth"
assert_unchanged "$before"
out=$(expect_error branch_exists 1 berth --json restore x)
assert_contains "$(jq -r .error.message <<<"$out")" "'berth'"
assert_unchanged "$before"
not 1 berth new y
assert_contains "$(last_stderr)" "your branch 'berth' is in the way"

# From a warm pool: refused before a slot is taken.
export BERTH_POOL_SIZE=1
berth pool fill >/dev/null
wait_for_fillers
before=$(fingerprint)
expect_error branch_exists 1 berth --json new z >/dev/null
assert_unchanged "$before"
pool_quiesce
export BERTH_POOL_SIZE=0

# Another prefix works at once; so does the name once the branch is renamed.
ws=$(berth -c branch_prefix=ws/ new y)
assert_eq "$(git -C "$ws" symbolic-ref --short HEAD)" ws/y
git branch -m berth user-berth
ws=$(berth restore x)
[[ -f $ws/work.txt ]]

# A deeper branch blocks its parent.
git branch berth/q/deeper
before=$(fingerprint)
out=$(expect_error branch_exists 1 berth --json new q)
assert_contains "$(jq -r .error.message <<<"$out")" "'berth/q/deeper'"
assert_unchanged "$before"

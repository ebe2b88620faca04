# A checkout that fails halfway (a required filter errors) leaves no worktree, branch, directory
# or record behind.
. "$(dirname "$0")/common.sh"
make_filtered_repo 30
berth new other >/dev/null # an unrelated workspace, made while the filter worked
git config filter.boom.smudge "sh -c 'exit 3'"
other=$(berth path other)
before=$(fingerprint)

out=$(not 1 berth --json new x)
assert_eq "$(error_code "$out")" git_failed
assert_unchanged "$before"
not 1 git rev-parse --verify -q refs/heads/berth/x >/dev/null
[[ ! -e $(dirname "$other")/x ]]
[[ ! -e .git/worktrees/x ]]
[[ ! -e .git/berth/workspaces/x.json ]]
assert_eq "$(berth --json list | jq -r '.[].name')" other
assert_eq "$(git -C "$other" status --porcelain)" ""

# Once the filter works, the same name is free.
git config filter.boom.smudge cat
ws=$(berth new x)
assert_eq "$(cat "$ws/data.dat")" payload

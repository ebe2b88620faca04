# accept --strategy ff: the user's branch moves to the workspace's tip (its own commits, plus one
# for uncommitted work); no merge commit; the checkout's files follow.
. "$(dirname "$0")/common.sh"
make_repo app
old=$(git rev-parse HEAD)
ws=$(berth new x)
cd "$ws"
commit_file a.txt a "add a"
tip=$(git rev-parse HEAD)
cd "$T/app"

berth accept x --strategy ff --keep >/dev/null
assert_eq "$(git rev-parse HEAD)" "$tip" "HEAD is the workspace's commit"
assert_eq "$(cat a.txt)" a
assert_eq "$(git status --porcelain --untracked-files=all)" ""
assert_eq "$(berth --json status x | jq -r .state)" landed

# Uncommitted work is committed first, then fast-forwarded.
ws=$(berth new y)
echo b >"$ws/b.txt"
berth accept y --strategy ff >/dev/null
assert_eq "$(git rev-parse HEAD~1)" "$tip"
assert_eq "$(git rev-list --parents -1 HEAD | wc -w)" 2
assert_eq "$(cat b.txt)" b
assert_eq "$(git status --porcelain --untracked-files=all)" ""

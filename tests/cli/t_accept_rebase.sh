# accept --strategy rebase: the workspace's commits are replayed, one by one with their messages,
# onto the user's moved branch, which then fast-forwards: linear history, no merge commit.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new x)
cd "$ws"
commit_file a.txt a "add a"
commit_file b.txt b "add b"
cd "$T/app"
commit_file user.txt "user work" "user's own commit"
user_tip=$(git rev-parse HEAD)

berth accept x --strategy rebase >/dev/null
assert_eq "$(git log --format=%s -3 | tr '\n' '|')" "add b|add a|user's own commit|"
assert_eq "$(git rev-parse HEAD~2)" "$user_tip"
assert_eq "$(git rev-list --merges --count HEAD)" 0 "merge commits"
assert_eq "$(cat a.txt b.txt user.txt)" "$(printf 'a\nb\nuser work')"
assert_eq "$(git status --porcelain --untracked-files=all)" ""

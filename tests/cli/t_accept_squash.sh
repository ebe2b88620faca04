# accept --strategy squash: one ordinary commit on the user's branch holding the whole change; its
# message is -m, or the single commit's subject, or a list of the workspace's commits.
. "$(dirname "$0")/common.sh"
make_repo app
old=$(git rev-parse HEAD)
ws=$(berth new search)
cd "$ws"
commit_file search.c "v1" "add search"
commit_file search.c "v2" "speed up search"
echo more >>README.md
cd "$T/app"
tree=$(berth --json diff search | jq -r .tree)

berth accept search --strategy squash >/dev/null
assert_eq "$(git rev-parse HEAD~1)" "$old" "parent"
assert_eq "$(git rev-list --parents -1 HEAD | wc -w)" 2 "one parent"
assert_eq "$(git rev-parse HEAD^{tree})" "$tree"
msg=$(git log -1 --format=%B)
assert_contains "$msg" "search"
assert_contains "$msg" "* add search"
assert_contains "$msg" "* speed up search"
assert_not_contains "$msg" "berth: uncommitted"
assert_eq "$(git status --porcelain --untracked-files=all)" ""

# One commit: its subject is the message.
ws=$(berth new one)
cd "$ws" && commit_file one.txt 1 "add one" && cd "$T/app"
berth accept one --strategy squash >/dev/null
assert_eq "$(git log -1 --format=%B)" "add one"

# -m wins.
ws=$(berth new two)
echo 2 >"$ws/two.txt"
berth accept two --strategy squash -m "Two, squashed" >/dev/null
assert_eq "$(git log -1 --format=%B)" "Two, squashed"
assert_eq "$(git rev-list --count "$old"..HEAD)" 3 "commits on main"

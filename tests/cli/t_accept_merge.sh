# accept --strategy merge: a --no-ff merge commit on the user's branch (first parent the old tip,
# second the workspace's work, uncommitted work included), a generated message or -m, the files
# written in the checkout, the checkout clean.
. "$(dirname "$0")/common.sh"
make_repo app
old=$(git rev-parse HEAD)
ws=$(berth new fix-login)
cd "$ws"
commit_file login.c "login v1" "add login"
commit_file login.c "login v2" "fix login"
echo uncommitted >notes.txt
cd "$T/app"
ws_tree=$(berth --json diff fix-login | jq -r .tree)

json=$(berth --json accept fix-login --strategy merge)
new=$(git rev-parse HEAD)
assert_eq "$(jq -r .new_commit <<<"$json")" "$new"
assert_eq "$(jq -r .old_commit <<<"$json")" "$old"
assert_eq "$(git rev-parse HEAD^1)" "$old" "first parent"
assert_eq "$(git rev-list --count HEAD^2 ^HEAD^1)" 3 "commits brought in (2 + the uncommitted work)"
assert_eq "$(git rev-parse HEAD^{tree})" "$ws_tree" "tree of the merge"
assert_eq "$(git log -1 --format=%s)" "Merge berth workspace 'fix-login'"
assert_eq "$(git symbolic-ref --short HEAD)" main
assert_eq "$(git status --porcelain --untracked-files=all)" "" "checkout status"
assert_eq "$(cat login.c notes.txt)" "$(printf 'login v2\nuncommitted')"
grep -q "berth accept fix-login (merge)" <<<"$(git reflog -1)"

# -m names the merge.
ws=$(berth new second)
echo 2 >"$ws/two.txt"
berth accept second --strategy merge -m "Land the second change" >/dev/null
assert_eq "$(git log -1 --format=%B)" "Land the second change"
assert_eq "$(git rev-list --parents -1 HEAD | wc -w)" 3 "a merge commit"

# The user moves their repository and runs `git worktree repair`: berth's records still name the
# old admin dirs. berth re-links them (git's links prove which workspace is which), so nothing is
# "missing": list, status, diff, accept, discard (with the untracked work in the snapshot) and
# restore all work as before the move.
. "$(dirname "$0")/common.sh"
make_repo proj
ws=$(berth new x)
y=$(berth new y)
(cd "$ws" && commit_file committed.txt "committed")
printf 'untracked\r\nbytes\n' >"$ws/u.txt"
echo more >>"$ws/README.md"
(cd "$y" && commit_file landed.txt "from y")
files=$(tree_digest "$ws")

cd "$T"
mv proj proj2
cd proj2
git worktree repair >/dev/null 2>&1
assert_eq "$(git -C "$ws" rev-parse --abbrev-ref HEAD)" berth/x

# Before any listing re-links the records: diff and path work at once.
assert_contains "$(berth diff x --name-only)" u.txt
assert_eq "$(berth path x)" "$ws"
json=$(berth --json list)
assert_eq "$(jq -r '.[] | select(.name == "x") | .state' <<<"$json")" ready
assert_eq "$(jq -r '.[] | select(.name == "x") | .changes.untracked' <<<"$json")" 1
assert_eq "$(berth --json status x | jq -r '.state, .ahead, .dirty' | tr '\n' ' ')" "ready 1 true "
assert_contains "$(berth diff x --name-only)" u.txt
# The records now name the admin dirs under the moved repository.
assert_eq "$(jq -r .git_dir .git/berth/workspaces/x.json)" "$T/proj2/.git/worktrees/x"
assert_eq "$(berth doctor)" "all good"

berth accept y --strategy squash >/dev/null
assert_eq "$(cat landed.txt)" "from y"

berth discard x >/dev/null
[[ ! -e $ws ]]
ws2=$(berth restore x)
assert_eq "$(tree_digest "$ws2")" "$files"
assert_eq "$(git -C "$ws2" log -1 --format=%s)" "change committed.txt"
# A workspace made after the move lives next to the others (the project's root moved with it).
assert_eq "$(dirname "$(berth new z)")" "$(dirname "$ws")"

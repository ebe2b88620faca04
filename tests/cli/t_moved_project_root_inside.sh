# With the workspace root inside the project (workspace_root = ".worktrees"), moving the
# repository moves the workspaces too. Once git's links are repaired (`git worktree repair PATH`),
# berth re-links path and admin dir: the workspace is ready, not missing, and discard saves its
# untracked work.
. "$(dirname "$0")/common.sh"
make_repo proj
echo 'workspace_root = ".worktrees"' >.berth.toml
git add .berth.toml
git commit -q -m "berth config"
ws=$(berth new x)
echo untracked >"$ws/u.txt"
(cd "$ws" && commit_file c.txt committed)
files=$(tree_digest "$ws")

cd "$T"
mv proj proj2
cd proj2
git worktree repair "$T/proj2/.worktrees/x" >/dev/null 2>&1
new=$T/proj2/.worktrees/x

# Before any listing: path and diff already follow git's links.
assert_eq "$(berth path x)" "$new"
assert_contains "$(berth diff x --name-only)" u.txt
json=$(berth --json list)
assert_eq "$(jq -r '.[0] | .state, .path, .changes.untracked' <<<"$json" | tr '\n' ' ')" "ready $new 1 "
assert_eq "$(jq -r .path .git/berth/workspaces/x.json)" "$new"
assert_eq "$(berth doctor)" "all good"
berth discard x >/dev/null
[[ ! -e $new ]]
ws2=$(berth restore x)
assert_eq "$ws2" "$new"
assert_eq "$(tree_digest "$ws2")" "$files"

# With the workspace root inside the project (workspace_root = ".worktrees"), moving the
# repository moves the workspaces too. Once git's links are repaired (`git worktree repair PATH`),
# berth re-links path and admin dir: the workspace is ready, not missing, and discard saves its
# untracked work.
. "$(dirname "$0")/common.sh"
move_project_with_inside_root
git worktree repair "$new" >/dev/null 2>&1

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

# With the workspace root inside the project (.worktrees), the user moves the repository and runs
# no `git worktree repair PATH` (git's links still name the old place). The workspace is never
# taken for a missing one: discard refuses (record_mismatch, nothing changed, its untracked work
# still there) and names `berth doctor --repair`, which repairs git's links and re-links the
# record; then list counts its work and discard keeps it (it used to save only the commits and
# leave the tree behind, its untracked file in no snapshot).
. "$(dirname "$0")/common.sh"
move_project_with_inside_root

# Listed as unlinked, not missing (the first command after the move also updates berth's own
# note of where the project is: the fingerprint is taken after it).
assert_eq "$(berth --json list | jq -r '.[0].state')" unlinked
before=$(fingerprint)
out=$(expect_error record_mismatch 5 berth --json discard x)
assert_contains "$(jq -r .error.hint <<<"$out")" "berth doctor --repair"
assert_unchanged "$before"
assert_eq "$(tree_digest "$new")" "$files"
# doctor names it; --repair re-links it.
out=$(not 1 berth doctor)
assert_contains "$out" "moved with the repository to $new"
assert_contains "$(berth doctor --repair)" "re-linked from $T/proj/.worktrees/x to $new"
assert_eq "$(berth doctor)" "all good"
json=$(berth --json list)
assert_eq "$(jq -r '.[0] | .state, .path, .changes.untracked' <<<"$json" | tr '\n' ' ')" "ready $new 1 "
berth discard x >/dev/null
[[ ! -e $new ]]
ws2=$(berth restore x)
assert_eq "$(tree_digest "$ws2")" "$files"

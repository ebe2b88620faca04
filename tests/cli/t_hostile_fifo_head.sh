# A FIFO planted as a workspace's HEAD is read by git for every worktree (`git worktree list`,
# `worktree add`, the user's `git gc`): berth still answers `list` for every workspace, refuses
# what would need git to read it (with hostile_file naming it, nothing changed) instead of
# hanging, and `doctor --repair` gives the workspace back its HEAD on its branch.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/hostile_helpers.sh"
two_workspaces_one_fifo y HEAD

out=$(bounded --json list)
assert_eq "$(jq -r '.[] | select(.name == "y") | .state' <<<"$out")" hostile "y's state"
assert_eq "$(jq -r '.[] | select(.name == "x") | .state' <<<"$out")" ready "x's state"
assert_eq "$(jq -c '.[] | select(.name == "y") | .changes' <<<"$out")" null "y's counts are unknown"
assert_eq "$(bounded --json status x | jq -r .dirty)" false "x's status"
bounded diff x >/dev/null

# A new workspace needs `git worktree add`, which would read y's HEAD: refused, nothing made.
before=$(cd "$T/app" && git for-each-ref && ls "$(dirname "$ws")")
out=$(expect_error hostile_file 5 bounded --json new --no-pool z)
assert_contains "$(jq -r .error.message <<<"$out")" "$admin"
assert_eq "$(cd "$T/app" && git for-each-ref && ls "$(dirname "$ws")")" "$before" "nothing made"

not 1 bounded doctor >/dev/null
bounded doctor --repair >/dev/null || true
assert_eq "$(bounded --json status y | jq -r '.state + " " + .head_branch')" "ready berth/y"
assert_eq "$(cat "$ws/w.txt")" work "y's work"
timeout 20 git gc -q
bounded new z >/dev/null

# A workspace whose submodule's .git file leads nowhere (a move broke its relative link): git
# cannot look at the work tree, so list and status never call it clean (state `unreadable`,
# changes `?`); `doctor --repair` points the submodule at its module again and the work shows.
. "$(dirname "$0")/common.sh"
make_repo_with_submodule
ws=$(berth new w)
echo mine >"$ws/u1.txt"
echo 'gitdir: ../../elsewhere/modules/third_party/x' >"$ws/third_party/x/.git"

json=$(berth --json list)
assert_eq "$(jq -c '.[] | select(.name == "w") | [.state, .dirty]' <<<"$json")" '["unreadable",true]'
assert_eq "$(berth --json status w | jq -c '[.state, .dirty]')" '["unreadable",true]'
assert_contains "$(berth list | grep '^w ')" " ? "
assert_not_contains "$(berth list)" clean

out=$(berth doctor --repair 2>&1) || { echo "$out" >&2; false; }
assert_contains "$out" "submodule third_party/x re-linked"
assert_eq "$(berth --json status w | jq -c '[.state, .dirty, .changes.untracked]')" '["ready",true,1]'
assert_contains "$(berth diff w --name-only)" u1.txt

# The repository moves (then `git worktree repair`) while a workspace outside it has work in a
# submodule: the submodule's relative links still lead to the old place. `doctor --repair`
# re-links them: list counts the work, diff names it, discard keeps it and restore brings it back.
. "$(dirname "$0")/common.sh"
make_repo_with_submodule
ws=$(berth new w)
echo mine >"$ws/u1.txt"
(cd "$ws/third_party/x" && echo q >q && git add q && git commit -qm subq)
sub_commit=$(git -C "$ws/third_party/x" rev-parse HEAD)
echo loose >"$ws/third_party/x/loose.txt"

cd "$T"
mv app app2
cd app2
git worktree repair >/dev/null 2>&1
out=$(berth doctor --repair 2>&1) || { echo "$out" >&2; false; }
assert_not_contains "$out" "problem:"
json=$(berth --json list)
assert_eq "$(jq -c '.[] | select(.name == "w") | [.changes.modified, .changes.untracked]' <<<"$json")" \
  '[1,1]' "list counts the submodule and the untracked file"
assert_eq "$(berth --json status w | jq .dirty)" true
names=$(berth diff w --name-only)
assert_contains "$names" third_party/x
assert_contains "$names" u1.txt
assert_contains "$(berth diff w --stat)" "submodule third_party/x: new commits"
json=$(berth --json discard w)
assert_eq "$(jq .unsaved_work <<<"$json")" true
berth restore w >/dev/null 2>&1
ws=$(berth path w)
assert_eq "$(cat "$ws/u1.txt")" mine
assert_eq "$(git -C "$ws/third_party/x" rev-parse HEAD)" "$sub_commit"
assert_eq "$(cat "$ws/third_party/x/loose.txt")" loose

# accept --keep lands the change but keeps the workspace: its record says landed with the landed
# commit, in list and status; without --keep the workspace is discarded into the trash.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new x)
cd "$ws" && commit_file a.txt a "add a" && cd "$T/app"

berth accept x --strategy merge --keep >/dev/null
[[ -d $ws ]]
assert_eq "$(berth --json list | jq -r '.[] | select(.name == "x") | .state')" landed
assert_eq "$(berth --json status x | jq -r .state)" landed
assert_contains "$(berth list)" landed
assert_eq "$(git -C "$ws" status --porcelain --untracked-files=all)" ""
reg=$(git rev-parse --git-common-dir)/berth/workspaces/x.json
assert_eq "$(jq -r .landed_commit "$reg")" "$(git rev-parse HEAD)"

# Uncommitted work in a kept workspace lands, and the workspace stays exactly as it was: its
# branch, index and files (docs/accept.md: accept never changes the workspace). Accepting it again
# finds nothing new to land.
ws=$(berth new y)
echo y >"$ws/y.txt"
ws_state() {
  git -C "$ws" rev-parse HEAD berth/y
  git -C "$ws" ls-files -s --debug | sha256sum
  git -C "$ws" status --porcelain=v2 --untracked-files=all
  tree_digest "$ws"
}
ws_before=$(ws_state)
y_branch=$(git rev-parse berth/y)
berth accept y --strategy squash --keep >/dev/null
assert_eq "$(git show HEAD:y.txt)" y
assert_eq "$(git rev-parse berth/y)" "$y_branch" "the kept workspace's branch"
assert_eq "$(git -C "$ws" status --porcelain --untracked-files=all)" "?? y.txt" "kept workspace after landing"
assert_eq "$(ws_state)" "$ws_before" "the kept workspace"
landed=$(git rev-parse HEAD)
out=$(berth --json accept y --strategy squash --keep)
assert_eq "$(jq -r .empty <<<"$out")" true "accepting the kept workspace again"
assert_eq "$(git rev-parse HEAD)" "$landed"

# Without --keep: gone from the list, its snapshot in the trash.
ws=$(berth new z)
echo z >"$ws/z.txt"
berth accept z --strategy squash >/dev/null
[[ ! -e $ws ]]
assert_eq "$(berth --json list | jq -r '[.[].name] | join(" ")')" "x y"
grep -q . <<<"$(git for-each-ref --format='%(refname)' refs/berth/trash/z/)"
! git rev-parse -q --verify berth/z >/dev/null

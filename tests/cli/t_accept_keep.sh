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

# Uncommitted work in a kept workspace is committed on its branch by a landing strategy.
ws=$(berth new y)
echo y >"$ws/y.txt"
berth accept y --strategy squash --keep >/dev/null
assert_eq "$(git -C "$ws" status --porcelain --untracked-files=all)" "" "kept workspace after landing"
assert_eq "$(git show berth/y:y.txt)" y

# Without --keep: gone from the list, its snapshot in the trash.
ws=$(berth new z)
echo z >"$ws/z.txt"
berth accept z --strategy squash >/dev/null
[[ ! -e $ws ]]
assert_eq "$(berth --json list | jq -r '[.[].name] | join(" ")')" "x y"
git for-each-ref --format='%(refname)' refs/berth/trash/z/ | grep -q .
! git rev-parse -q --verify berth/z >/dev/null

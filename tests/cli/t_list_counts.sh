# list counts a workspace's commits ahead of its base and its staged, modified and untracked files.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new work)
berth new idle >/dev/null
cd "$ws"
commit_file one.txt 1
commit_file two.txt 2
echo staged >>README.md && git add README.md
echo modified >>src/main.c
echo new >untracked.txt
mkdir -p new/dir && echo deep >new/dir/file.txt
cd "$T/app"

json=$(berth --json list)
work=$(jq '.[] | select(.name == "work")' <<<"$json")
assert_eq "$(jq -c '[.ahead, .behind, .dirty]' <<<"$work")" "[2,0,true]"
assert_eq "$(jq -c '.changes | [.staged, .modified, .untracked, .conflicted]' <<<"$work")" "[1,1,2,0]"
assert_eq "$(jq -r .head <<<"$work")" "$(git rev-parse berth/work)"
assert_eq "$(jq -c '.[] | select(.name == "idle") | [.ahead, .dirty]' <<<"$json")" "[0,false]"
assert_contains "$(berth list | grep '^work ')" "+1 ~1 ?2"

# Back at the base, with only untracked files left: nothing ahead, still dirty.
git -C "$ws" reset -q --hard HEAD~2
assert_eq "$(berth --json status work | jq -c '[.ahead, .changes.untracked, .dirty]')" "[0,2,true]"

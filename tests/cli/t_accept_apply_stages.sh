# `berth accept NAME` (default strategy apply) stages the workspace's whole change in the user's
# checkout: index and files at the workspace's state, HEAD unmoved, the workspace discarded with a
# trash snapshot.
. "$(dirname "$0")/common.sh"
make_repo app 5
head=$(git rev-parse HEAD)
ws=$(berth new x)
cd "$ws"
commit_file README.md "# app, improved" "readme"
echo more >>src/main.c
echo new >added.txt
rm files/1/f1.txt
cd "$T/app"
tree=$(berth --json diff x | jq -r .tree)
ws_files=$(tree_digest "$ws")

out=$(berth accept x)
assert_contains "$out" "staged 4 file(s)"
assert_eq "$(git rev-parse HEAD)" "$head" "HEAD"
assert_eq "$(git write-tree)" "$tree" "index"
assert_eq "$(tree_digest .)" "$ws_files" "files"
assert_eq "$(git diff --name-only)" "" "unstaged changes"
assert_eq "$(git status --porcelain | sort | tr '\n' ' ')" "A  added.txt D  files/1/f1.txt M  README.md M  src/main.c "

# Discarded, recoverably.
assert_eq "$(berth --json list | jq length)" 0
[[ ! -e $ws ]]
grep -q . <<<"$(git for-each-ref --format='%(refname)' refs/berth/trash/x/)"
[[ ! -e $(git rev-parse --git-common-dir)/berth/intents/main.json ]]

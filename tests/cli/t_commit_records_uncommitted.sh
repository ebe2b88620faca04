# `berth commit NAME -m MSG` records the workspace's tracked and untracked uncommitted work as one
# commit on berth/NAME; the workspace is clean afterwards and its files untouched.
. "$(dirname "$0")/common.sh"
make_repo app
base=$(git rev-parse HEAD)
ws=$(berth new x)
echo staged >>"$ws/README.md"
git -C "$ws" add README.md
echo unstaged >>"$ws/src/main.c"
echo new >"$ws/new.txt"
rm "$ws/docs/guide.md"
files_before=$(tree_digest "$ws")

json=$(berth --json commit x -m "agent work")
commit=$(jq -r .commit <<<"$json")
assert_eq "$(git rev-parse berth/x)" "$commit" "branch tip"
assert_eq "$(git rev-parse berth/x~1)" "$base" "parent"
assert_eq "$(git log -1 --format=%B berth/x)" "agent work"
assert_eq "$(git diff --name-only "$base" berth/x | sort | tr '\n' ' ')" \
  "README.md docs/guide.md new.txt src/main.c " "files of the commit"
assert_eq "$(jq -r '[.files[].path] | sort | join(" ")' <<<"$json")" "README.md docs/guide.md new.txt src/main.c"
assert_eq "$(git -C "$ws" status --porcelain --untracked-files=all)" "" "workspace status"
assert_eq "$(tree_digest "$ws")" "$files_before" "workspace files"
# The user's checkout saw nothing.
assert_eq "$(git rev-parse HEAD)" "$base"
assert_eq "$(git status --porcelain --untracked-files=all)" ""

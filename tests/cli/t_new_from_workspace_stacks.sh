# `berth new` run from inside a workspace starts from that workspace's HEAD (stacking a task on
# it), and the new workspace still lives in the project's workspace root, not nested.
. "$(dirname "$0")/common.sh"
make_repo app
a=$(berth new step-1)
cd "$a/src"
commit_file "$a/src/feature.c" "int feature;" "step 1 work"
step1=$(git rev-parse HEAD)

b=$(berth new step-2)
assert_eq "$(dirname "$b")" "$(dirname "$a")" "workspace root"
assert_eq "$(berth --json status step-2 | jq -r .base)" "$step1"
assert_eq "$(cat "$b/src/feature.c")" "int feature;"
[[ $b != "$a"/* ]]
git -C "$a" status --porcelain --untracked-files=all | { ! grep .; }

# Both are workspaces of the one project, whichever checkout lists them.
assert_eq "$(berth --json list | jq -r '.[].name' | tr '\n' ' ')" "step-1 step-2 "
assert_eq "$(berth -C "$T/app" --json list | jq length)" 2
# From the main checkout, HEAD is still the first commit.
assert_eq "$(berth -C "$T/app" --json new side | jq -r .base)" "$(git -C "$T/app" rev-parse HEAD)"

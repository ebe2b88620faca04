# `berth new NAME` makes a worktree on branch berth/NAME at HEAD, outside the checkout, and prints
# its path alone on stdout.
. "$(dirname "$0")/common.sh"
make_repo app 20
head=$(git rev-parse HEAD)
main_files=$(tree_digest .)
main_index=$(git ls-files -s | sha256sum)

ws=$(berth new fix-login)
assert_eq "$(printf '%s\n' "$ws" | wc -l)" 1 "lines printed by new"
[[ $ws =~ ^$HOME/berth/app-[0-9a-f]{8}/fix-login$ ]]
[[ -d $ws ]]
[[ $ws != "$T/app"* ]] # outside the user's checkout

# The workspace is a clean checkout of HEAD on its own branch.
assert_eq "$(git -C "$ws" symbolic-ref HEAD)" refs/heads/berth/fix-login
assert_eq "$(git rev-parse berth/fix-login)" "$head"
assert_eq "$(git -C "$ws" status --porcelain --untracked-files=all)" ""
assert_eq "$(tree_digest "$ws")" "$main_files" "files of the workspace"
[[ -x $ws/bin/run.sh && -L $ws/GUIDE ]]
git worktree list --porcelain | grep -cx "worktree $ws" >/dev/null

# The base is recorded as a full SHA; the owner label is kept.
json=$(berth --json new agent-task --owner claude-1)
assert_eq "$(jq -r .base <<<"$json")" "$head"
assert_eq "$(jq -r .owner <<<"$json")" claude-1
assert_eq "$(jq -r .branch <<<"$json")" berth/agent-task
assert_eq "$(jq -r .state <<<"$json")" ready

# `cd "$(berth new x)"` works, and slashes in a name become '-' in the folder only.
cd "$(berth new feat/search)"
assert_eq "$(basename "$PWD")" feat-search
assert_eq "$(git symbolic-ref --short HEAD)" berth/feat/search
cd "$T/app"

# The user's checkout is untouched: same files, same index, nothing to commit.
assert_eq "$(tree_digest .)" "$main_files" "files of the checkout"
assert_eq "$(git ls-files -s | sha256sum)" "$main_index" "index of the checkout"
assert_eq "$(git status --porcelain --untracked-files=all)" ""

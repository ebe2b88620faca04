# A slot holds the main HEAD of when it was made; taken for an older or a newer base, it ends with
# exactly that base's tree (files added, changed, deleted, mode and symlink changes).
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app 100
old=$(git rev-parse HEAD)
echo changed >files/1/f1.txt
git rm -q files/2/f2.txt
mkdir -p added/dir && echo new >added/dir/new.txt
chmod +x src/main.c
ln -sfn README.md GUIDE
git add -A && git commit -qm middle
middle=$(git rev-parse HEAD)

export BERTH_POOL_SIZE=2
berth pool fill >/dev/null
assert_eq "$(berth --json pool status | jq -r '[.slots[].commit] | unique | join(",")')" "$middle"

# Older base than the slot's.
ws=$(berth new older --base "$old" 2>/dev/null)
assert_contains "$(git -C "$ws" rev-parse --absolute-git-dir)" "/worktrees/slot-"
ref=$(berth new --no-pool older-ref --base "$old" 2>/dev/null)
assert_eq "$(tree_digest "$ws")" "$(tree_digest "$ref")" "older base tree"
assert_eq "$(git -C "$ws" rev-parse HEAD)" "$old"
assert_eq "$(git -C "$ws" status --porcelain --untracked-files=all)" ""
wait_for_fillers

# Newer base: the main branch moves on after the slots were made.
echo again >files/3/f3.txt
git rm -q -r added
git commit -qam newer
newer=$(git rev-parse HEAD)
assert_eq "$(berth --json pool status | jq -r '[.slots[].commit] | unique | join(",")')" "$middle"
ws=$(berth new newer 2>/dev/null)
assert_contains "$(git -C "$ws" rev-parse --absolute-git-dir)" "/worktrees/slot-"
ref=$(berth new --no-pool newer-ref 2>/dev/null)
assert_eq "$(git -C "$ws" rev-parse HEAD)" "$newer"
assert_eq "$(tree_digest "$ws")" "$(tree_digest "$ref")" "newer base tree"
assert_eq "$(git -C "$ws" status --porcelain --untracked-files=all)" ""
[[ ! -e $ws/added ]]
pool_quiesce

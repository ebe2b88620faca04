# A workspace made under another workspace root (`-c workspace_root=DIR`, or before the setting
# changed) keeps that root in its record: without the flag it is listed and found, discarded (its
# tree deleted, also by the background deleter, which learns of DIR), and restored. A record
# written before berth kept roots, whose path lies outside today's roots, or one naming the
# project's checkout, is never deleted: unsafe_path / record_mismatch (exit 5), nothing changed.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app
ws=$(berth -c workspace_root="$T/elsewhere" new x)
assert_eq "$ws" "$T/elsewhere/x"
echo wip >"$ws/wip.txt"
assert_eq "$(berth path x)" "$ws"
assert_eq "$(berth --json list | jq -r '.[] | "\(.name) \(.root) \(.dirty)"')" "x $T/elsewhere true"

# An old record (no root kept) of a workspace outside today's roots: not berth's to delete.
record=$(git rev-parse --git-common-dir)/berth/workspaces/x.json
cp "$record" "$T/record.json"
jq 'del(.root)' "$T/record.json" >"$record"
before=$(fingerprint)
files=$(tree_digest "$ws")
expect_error unsafe_path 5 berth --json discard x >/dev/null
expect_error unsafe_path 5 berth --json discard x --force >/dev/null
assert_unchanged "$before"
assert_eq "$(tree_digest "$ws")" "$files"
# A record whose root and path name the project's own checkout: never deleted either (the
# record claims a tree that is not a workspace's: record_mismatch).
jq --arg root "$T" --arg path "$PWD" '.root = $root | .path = $path' "$T/record.json" >"$record"
before=$(fingerprint)
expect_error record_mismatch 5 berth --json discard x >/dev/null
assert_unchanged "$before"
cp "$T/record.json" "$record"

# With its root recorded, discard works without the flag; restore brings it back (under today's
# root: a new workspace).
berth discard x >/dev/null 2>&1
[[ ! -e $ws ]]
assert_eq "$(find "$T/elsewhere/.trash" -mindepth 1 2>/dev/null | wc -l)" 0 "trees left in the trash"
git show "$(git for-each-ref --format='%(refname)' refs/berth/trash/x/):wip.txt" >/dev/null
ws=$(berth restore x)
assert_eq "$(cat "$ws/wip.txt")" wip
berth discard x >/dev/null 2>&1

# With a pool, the tree is left to the background deleter, which finds it in DIR/.trash.
export BERTH_POOL_SIZE=1
ws=$(berth -c workspace_root="$T/elsewhere" new y)
wait_for_fillers
echo wip >"$ws/wip.txt"
berth discard y >/dev/null 2>&1
wait_for_fillers
[[ ! -e $ws ]]
assert_eq "$(find "$T/elsewhere/.trash" -mindepth 1 2>/dev/null | wc -l)" 0 "trees left in the trash"
git worktree prune
assert_eq "$(git worktree list --porcelain | grep -c "$T/elsewhere" || true)" 0 "worktrees in DIR"
assert_eq "$(berth doctor)" "all good"
ws=$(berth restore y)
assert_eq "$(cat "$ws/wip.txt")" wip

# Also when the flag is given to discard itself (the background deleter does not get it).
ws=$(berth -c workspace_root="$T/elsewhere" new z)
wait_for_fillers
berth -c workspace_root="$T/elsewhere" discard z >/dev/null 2>&1
wait_for_fillers
[[ ! -e $ws ]]
assert_eq "$(find "$T/elsewhere/.trash" -mindepth 1 2>/dev/null | wc -l)" 0 "trees left in the trash"
pool_quiesce

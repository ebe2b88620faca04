# With a pool, discard returns once the tree is moved aside into <root>/.trash; the background
# filler deletes it. Meanwhile `list` never shows the half-deleted workspace, and afterwards
# nothing of it is left: no folder, no worktree entry, no branch.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app 3000
export BERTH_POOL_SIZE=2
berth pool fill >/dev/null
ws=$(berth new x 2>/dev/null)
echo work >"$ws/new.txt"
wait_for_fillers
assert_eq "$(berth --json pool status | jq -r .ready)" 2

berth discard x >/dev/null
# Returned: the workspace is gone from its place and from berth's view at once.
[[ ! -e $ws ]]
not 4 berth path x >/dev/null
assert_eq "$(git for-each-ref refs/heads/berth/)" "" "branch"
root=$(dirname "$ws")
# While the filler deletes the tree, list never shows it.
for _ in $(seq 1 40); do
  assert_eq "$(berth --json list | jq length)" 0 "workspaces listed"
  [[ -z $(pool_fillers) ]] && break
  sleep 0.05
done
wait_for_fillers
assert_eq "$(find "$root/.trash" -mindepth 1 | wc -l)" 0 "trees left in the trash"
assert_eq "$(berth --json pool status | jq -r '.trash, .ready' | paste -sd,)" "0,2"
git worktree list --porcelain | { ! grep -q '/\.trash/'; }
# The work is recoverable from the trash snapshot, as without a pool.
ws=$(berth restore x 2>/dev/null)
assert_eq "$(cat "$ws/new.txt")" work
wait_for_fillers

# A trash folder left by a crash (the filler never ran) is deleted by the next fill.
ws=$(berth new y 2>/dev/null)
wait_for_fillers
BERTH_POOL_SIZE=0 berth discard y >/dev/null # size 0: deleted before returning
mkdir -p "$root/.trash/leftover.1.1/sub" && echo x >"$root/.trash/leftover.1.1/sub/f"
assert_eq "$(berth --json pool status | jq -r .trash)" 1
berth pool fill >/dev/null
assert_eq "$(find "$root/.trash" -mindepth 1 | wc -l)" 0 "leftover deleted"
pool_quiesce

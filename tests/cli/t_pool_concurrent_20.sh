# 20 `berth new` at once with a pool of 2: all succeed (two take slots, the rest go cold, fillers
# run meanwhile), every workspace is clean and on its own branch, and no slot is used twice.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app 300
head=$(git rev-parse HEAD)
export BERTH_POOL_SIZE=2
berth pool fill >/dev/null

pids=()
for i in $(seq 1 20); do
  berth new "task-$i" >"$TMPDIR/out.$i" 2>"$TMPDIR/err.$i" &
  pids+=($!)
done
failures=0
for i in $(seq 1 20); do
  if ! wait "${pids[$((i - 1))]}"; then
    failures=$((failures + 1))
    echo "berth new task-$i failed:" >&2
    cat "$TMPDIR/err.$i" >&2
  fi
done
assert_eq "$failures" 0 "failed creations"
wait_for_fillers

from_slots=0
for i in $(seq 1 20); do
  ws=$(cat "$TMPDIR/out.$i")
  assert_eq "$ws" "$(berth path "task-$i")"
  assert_eq "$(git -C "$ws" status --porcelain --untracked-files=all)" "" "status of task-$i"
  assert_eq "$(git -C "$ws" rev-parse HEAD)" "$head"
  assert_eq "$(git -C "$ws" symbolic-ref HEAD)" "refs/heads/berth/task-$i"
  [[ $(git -C "$ws" rev-parse --absolute-git-dir) == */worktrees/slot-* ]] && from_slots=$((from_slots + 1))
done
((from_slots >= 2)) || { echo "only $from_slots workspaces came from the pool" >&2; false; }
assert_eq "$(git for-each-ref refs/heads/berth/ | wc -l)" 20 "branches"
assert_eq "$(berth --json list | jq '[.[] | select(.state == "ready" and .dirty == false)] | length')" 20
assert_eq "$(berth --json pool status | jq -r '.ready')" 2
assert_eq "$(git worktree list --porcelain | grep -c '^worktree ')" 23 "worktrees: main, 20, 2 slots"
git worktree list --porcelain | { ! grep '^prunable'; }
git fsck --no-progress --connectivity-only 2>&1 | { ! grep -i error; }
pool_quiesce

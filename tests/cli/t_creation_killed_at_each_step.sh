# A `berth new` or `berth restore` killed (SIGKILL) at any step of the creation leaves nothing
# the next command does not undo: after it, no branch, record, directory or worktree entry of
# the name is left, the snapshot a restore started from is still there, and the same name works
# at once. (A kill right after `git worktree add`, before the record learnt its admin dir, used to
# leave a "creating" record nothing could roll back: the name was unusable for good.)
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app 20
berth new other >/dev/null # a workspace that must stay untouched
ws=$(berth new x)
echo work >"$ws/work.txt"
berth discard x >/dev/null 2>&1
snapshot=$(git for-each-ref --format='%(refname) %(objectname)' refs/berth/trash/x/)

# Every step without a pool; with one, the steps around the slot's take.
for pool in 0 1; do
  export BERTH_POOL_SIZE=$pool
  steps=(record after-record worktree populate hook setup ready)
  ((pool == 0)) || steps=(after-record worktree populate)
  for step in "${steps[@]}"; do
    for op in new restore; do
      wait_for_fillers
      before=$(fingerprint | without_pool)
      BERTH_TEST_FAIL_AT=$step:kill not 137 berth "$op" x >/dev/null
      # The next command (any: list here) rolls the dead creation back.
      assert_eq "$(berth --json list | jq -r '[.[].name] | join(",")')" other "after $op killed at $step"
      wait_for_fillers
      assert_eq "$(fingerprint | without_pool)" "$before" "fingerprint after $op killed at $step (pool $pool)"
      assert_eq "$(git for-each-ref --format='%(refname) %(objectname)' refs/berth/trash/x/)" "$snapshot"
      # The name works at once.
      ws=$(berth restore x)
      assert_eq "$(cat "$ws/work.txt")" work
      berth discard x >/dev/null 2>&1
      snapshot=$(git for-each-ref --format='%(refname) %(objectname)' refs/berth/trash/x/ | head -1)
      git for-each-ref --format='%(refname)' refs/berth/trash/x/ | tail -n +2 | xargs -r -n1 git update-ref -d
    done
  done
done
pool_quiesce

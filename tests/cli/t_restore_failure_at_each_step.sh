# A `berth restore` that fails at any step leaves nothing behind: no branch (a failed restore used
# to leave berth/x, and every later `restore x` or `new x` then failed with branch_exists), record,
# directory or worktree entry; the snapshot stays, and the same restore works right after. Real
# failures where they can be arranged (the branch held by another worktree, a required filter
# erroring), BERTH_TEST_FAIL_AT (for tests only) for the other steps, without and with a pool.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_filtered_repo 20
ws=$(berth new x)
echo "work" >"$ws/work.txt"
git -C "$ws" add work.txt && git -C "$ws" commit -q -m "work on x"
echo "more" >"$ws/more.txt"
berth discard x >/dev/null 2>&1

restores() { # the restore works, with the work and the commit, and x goes back to the trash
  ws=$(berth restore x)
  assert_eq "$(cat "$ws/work.txt") $(cat "$ws/more.txt")" "work more"
  assert_eq "$(git -C "$ws" log -1 --format=%s)" "work on x"
  berth discard x >/dev/null 2>&1
}
fails_cleanly() { # CODE: `restore x` fails with CODE (exit 1) and changes nothing
  local before
  wait_for_fillers # (the deleter of the last discard writes in the registry while it works)
  before=$(fingerprint | without_pool)
  BERTH_TEST_FAIL_AT=${fail_at:-} expect_error "$1" 1 berth --json restore x >/dev/null
  assert_eq "$(fingerprint | without_pool)" "$before" "fingerprint after a failed restore"
  not 1 git rev-parse --verify -q refs/heads/berth/x >/dev/null
}

for pool in 0 1; do
  export BERTH_POOL_SIZE=$pool
  for step in record after-record worktree populate hook setup ready; do
    if ((pool)); then berth pool fill >/dev/null; fi
    fail_at=$step fails_cleanly io_error
    restores
  done
done
export BERTH_POOL_SIZE=0
pool_quiesce
# The restored files cannot be written: a required filter errors. (Without a pool: a slot has the
# file checked out already, and git does not write it again.)
git config filter.boom.smudge "sh -c 'exit 3'"
fails_cleanly git_failed
git config filter.boom.smudge cat
restores

# Another worktree holds the (unborn) branch: git makes the branch, then refuses the worktree.
git worktree add -q --detach "$T/holder"
git -C "$T/holder" symbolic-ref HEAD refs/heads/berth/x
fails_cleanly git_failed
git -C "$T/holder" checkout -q --detach main
git worktree remove "$T/holder"
restores
berth new x >/dev/null

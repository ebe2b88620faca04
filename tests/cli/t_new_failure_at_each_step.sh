# A `berth new` that fails at any step leaves nothing behind: no branch, record, directory or
# worktree entry, and the same name works right after. Real failures where they can be arranged
# (an unusable workspace root, the branch held by another worktree, a required filter erroring);
# BERTH_TEST_FAIL_AT (for tests only) for the steps no real failure reaches. With a pool, the
# slot a failed `new` took is gone (the pool is a cache), nothing else.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_filtered_repo 20
berth new other >/dev/null # the root exists, and a workspace that must stay untouched


# fails_cleanly STATUS CODE CMD...: CMD (a `berth --json new x`, with BERTH_TEST_FAIL_AT=$fail_at)
# fails so, changes nothing, and then `new x` works.
fail_at=
fails_cleanly() {
  local status=$1 code=$2 before
  shift 2
  wait_for_fillers # (the deleter of the last discard writes in the registry while it works)
  before=$(fingerprint | without_pool)
  BERTH_TEST_FAIL_AT=$fail_at expect_error "$code" "$status" "$@" >/dev/null
  assert_eq "$(fingerprint | without_pool)" "$before" "fingerprint after a failed: $*"
  not 1 git rev-parse --verify -q refs/heads/berth/x >/dev/null
  ws=$(berth new x)
  assert_eq "$(cat "$ws/data.dat")" payload
  berth discard --no-trash x >/dev/null
}

for pool in 0 1; do
  export BERTH_POOL_SIZE=$pool
  if ((pool)); then berth pool fill >/dev/null; fi
  # Every step of the creation, by injection.
  for step in record after-record worktree populate hook setup ready; do
    if ((pool)); then berth pool fill >/dev/null; fi
    fail_at=$step fails_cleanly 1 io_error berth --json new x
  done
done
export BERTH_POOL_SIZE=0
pool_quiesce

# The checkout fails: a required filter errors. (Without a pool: a slot has the file checked out
# already, and git does not write it again.)
git config filter.boom.smudge "sh -c 'exit 3'"
before=$(fingerprint)
expect_error git_failed 1 berth --json new x >/dev/null
assert_unchanged "$before"
git config filter.boom.smudge cat
berth new x >/dev/null
berth discard --no-trash x >/dev/null

# The workspace root cannot be made (a file is in the way): refused before anything is written.
touch "$T/not-a-dir"
fails_cleanly 1 io_error berth --json -c workspace_root="$T/not-a-dir" new x

# Another worktree holds the (unborn) branch: git makes the branch, then refuses the worktree.
git worktree add -q --detach "$T/holder"
git -C "$T/holder" symbolic-ref HEAD refs/heads/berth/x
before=$(fingerprint)
expect_error git_failed 1 berth --json new x >/dev/null
assert_unchanged "$before"
git -C "$T/holder" checkout -q --detach main
git worktree remove "$T/holder"
ws=$(berth new x)

# The unrelated workspace came through all of it.
assert_eq "$(berth --json list | jq -r '.[].name' | tr '\n' ' ')" "other x "
assert_eq "$(git -C "$(berth path other)" status --porcelain)" ""
pool_quiesce

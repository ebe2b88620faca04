# A restore that made the agent's own branch again (the workspace was on `git checkout -b
# feature`, deleted since the discard) and then fails later leaves nothing behind: the branch it
# made goes with the rest (without and with a pool), and the same restore works right after.
# A branch of that name the user made meanwhile is never touched (restore detaches instead).
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app
ws=$(berth new t)
git -C "$ws" checkout -q -b feature
echo work >"$ws/feature.c"
git -C "$ws" add feature.c && git -C "$ws" commit -q -m 'on feature'
feature_head=$(git -C "$ws" rev-parse HEAD)
berth discard t >/dev/null 2>&1
git branch -q -D feature

no_pool() { # the fingerprint without the pool's slots and records (a failed restore may use one)
  { grep -v -e '/\.pool/' -e ' \./pool/' -e '^locked berth: pool slot' -e '^detached$' -e '^HEAD ' ||
    true; } | cat -s
}
for pool in 0 1; do
  export BERTH_POOL_SIZE=$pool
  for step in hook setup ready; do
    if ((pool)); then berth pool fill >/dev/null; fi
    wait_for_fillers
    before=$(fingerprint | no_pool)
    BERTH_TEST_FAIL_AT=$step expect_error io_error 1 berth --json restore t >/dev/null
    assert_eq "$(fingerprint | no_pool)" "$before" "fingerprint after a restore failed at $step"
    not 1 git rev-parse --verify -q refs/heads/feature >/dev/null
    not 1 git rev-parse --verify -q refs/heads/berth/t >/dev/null
  done
done
export BERTH_POOL_SIZE=0
pool_quiesce
# A feature branch of the user's (made since the discard, elsewhere): restore did not make it,
# a failed restore leaves it where it is.
git branch -q feature main
before=$(fingerprint)
BERTH_TEST_FAIL_AT=ready expect_error io_error 1 berth --json restore t >/dev/null
assert_eq "$(fingerprint)" "$before" "the user's branch kept"
git branch -q -D feature

# The same restore works: on feature, made again at the agent's commit.
ws=$(berth restore t 2>/dev/null)
assert_eq "$(git -C "$ws" symbolic-ref HEAD)" refs/heads/feature "on its own branch"
assert_eq "$(git -C "$ws" rev-parse HEAD)" "$feature_head" "with its commit"

# The user's checkout is in the middle of a merge, a rebase, a cherry-pick or a revert: accept
# refuses with its own code (target_in_progress, exit 5) and a hint, before anything changes, for
# every landing strategy and under --dry-run; neither the user's repository nor the workspace
# changes (the workspace's uncommitted work is not committed on its branch).
. "$(dirname "$0")/common.sh"
make_repo app
commit_file conflict.txt base
git branch side
commit_file conflict.txt ours
git checkout -q side
commit_file conflict.txt theirs
commit_file other.txt other
git checkout -q main

ws=$(berth new x)
echo "agent work" >"$ws/agent.txt" # uncommitted in the workspace
cd "$ws" && commit_file committed.txt c && cd "$T/app"
echo "more agent work" >"$ws/agent2.txt"

# refuse_everything WHAT [STRATEGIES]: every strategy (default: all four) refuses, and nothing
# changes.
refuse_everything() {
  local what=$1 strategies=${2:-apply squash merge rebase} before ws_before s out
  before=$(fingerprint)
  ws_before=$(fingerprint "$ws")
  for s in $strategies; do
    out=$(expect_error target_in_progress 5 berth --json accept x --strategy "$s")
    assert_contains "$(jq -r .error.message <<<"$out")" "$what"
    assert_contains "$(jq -r .error.hint <<<"$out")" "abort"
  done
  expect_error target_in_progress 5 berth --json accept x --strategy apply --dry-run >/dev/null
  expect_error target_in_progress 5 berth --json accept x --strategy squash --dry-run >/dev/null
  expect_error target_in_progress 5 berth --json accept x --strategy merge --keep >/dev/null
  assert_unchanged "$before"
  assert_unchanged "$ws_before" "$ws"
}

# A merge stopped on a conflict.
not 1 git merge -q side >/dev/null
refuse_everything "a merge"
git merge --abort

# A cherry-pick stopped on a conflict.
not 1 git cherry-pick side~1 >/dev/null
refuse_everything "a cherry-pick" squash
git cherry-pick --abort

# A revert stopped on a conflict.
commit_file conflict.txt "ours again"
not 1 git revert --no-edit HEAD~1 >/dev/null
refuse_everything "a revert" squash
git revert --abort

# A rebase of main stopped on a conflict: git shows the checkout detached, yet main is busy.
not 1 git rebase -q side >/dev/null 2>&1
refuse_everything "a rebase"
git rebase --abort

# Conflicts left by a `git stash pop`: no marker file, but an unmerged index.
echo "stashed" >conflict.txt
git stash -q
commit_file conflict.txt "committed meanwhile"
not 1 git stash pop >/dev/null
refuse_everything "resolving conflicts" apply
git checkout -q HEAD -- conflict.txt
git stash drop -q

# A bisect: the checkout is detached, main is where the bisect will return.
git bisect start HEAD HEAD~2 >/dev/null 2>&1
before=$(fingerprint)
out=$(expect_error target_in_progress 5 berth --json accept x --strategy squash --into main)
assert_contains "$(jq -r .error.message <<<"$out")" "a bisect"
assert_unchanged "$before"
git bisect reset >/dev/null 2>&1

# All done: the accept goes through.
berth accept x --strategy squash >/dev/null
assert_eq "$(git show HEAD:agent.txt)" "agent work"

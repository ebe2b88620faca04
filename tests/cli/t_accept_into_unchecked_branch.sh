# accept --into a branch that is checked out nowhere: only that ref moves (compare-and-swap), no
# file, index or HEAD of the user's checkout is touched, even with their own uncommitted work on
# the very file the change writes. apply, which needs a checkout, is refused.
. "$(dirname "$0")/common.sh"
make_repo app
git branch release
release=$(git rev-parse release)
commit_file main-only.txt main "main moves on"
ws=$(berth new x)
echo agent >>"$ws/README.md"
echo agent >"$ws/agent.txt"
echo "user's edit" >>README.md
echo "user's file" >user.txt
checkout() {
  git rev-parse HEAD main
  git symbolic-ref HEAD
  git ls-files -s | sha256sum
  git status --porcelain=v2 --untracked-files=all
  tree_digest .
}
checkout_before=$(checkout)

before=$(fingerprint)
expect_error usage 2 berth --json accept x --strategy apply --into release >/dev/null
expect_error invalid_revision 4 berth --json accept x --strategy merge --into no-such-branch >/dev/null
assert_unchanged "$before"

for strategy in merge squash rebase ff; do
  git branch "rel-$strategy" "$release"
  berth accept x --strategy "$strategy" --into "rel-$strategy" --keep >/dev/null
  assert_eq "$(git show "rel-$strategy:agent.txt")" agent "$strategy: agent.txt"
  assert_eq "$(git show "rel-$strategy:README.md" | tail -n1)" agent "$strategy: README.md"
  git merge-base --is-ancestor "$release" "rel-$strategy"
  assert_eq "$(checkout)" "$checkout_before" "the user's checkout after $strategy"
done
assert_eq "$(git rev-parse rel-merge~1)" "$release" "merge: first parent"
assert_eq "$(git rev-parse rel-squash~1)" "$release" "squash: parent"
# Like git's own merge, an accept lands the workspace's history since it meets the target: x
# started from main, so main's later commit comes along (this line used to claim the reverse
# behind a bare `!`, which checks nothing under set -e).
for strategy in merge squash rebase ff; do
  assert_eq "$(git show "rel-$strategy:main-only.txt")" main "$strategy: main-only.txt"
done
assert_eq "$(git rev-parse release)" "$release" "release itself"

# A discard's tree lets go of the workspace's branch and the branch goes in one ref transaction
# (the tree's HEAD detached where the snapshot saw it, the branch deleted from the tip read at the
# start). Where the branch is also checked out in another worktree (forced there behind berth's
# back), the tree still lets go of it and the branch is kept, with a warning; a branch the agent
# checked out in its workspace is never touched; a fork's attempts discarded together, the same.
# Each time the work is in the trash, and the user's checkout is unchanged.
. "$(dirname "$0")/common.sh"
make_repo app
checkout() { git ls-files -s && git status --porcelain=v2 --untracked-files=all && tree_digest .; }
user=$(checkout)

# The usual case: nothing holds the branch afterwards, and the name works at once.
ws=$(berth new x)
echo work >"$ws/work.txt"
berth discard x >/dev/null
not 1 git rev-parse --verify -q refs/heads/berth/x >/dev/null
assert_not_contains "$(git worktree list --porcelain)" "refs/heads/berth/x"
ws=$(berth restore x)
assert_eq "$(cat "$ws/work.txt")" work "restored"
berth discard --force --no-trash x >/dev/null

# The branch packed (as the user's `git gc` leaves it): no loose ref file for berth to read, its
# tip is asked of git, and the discard is the same.
ws=$(berth new p)
echo packed >"$ws/work.txt"
git pack-refs --all
[[ ! -e .git/refs/heads/berth/p ]]
berth discard p >/dev/null
not 1 git rev-parse --verify -q refs/heads/berth/p >/dev/null
ws=$(berth restore p)
assert_eq "$(cat "$ws/work.txt")" packed "restored"
berth discard --force --no-trash p >/dev/null

# The branch checked out in another worktree as well: kept, and said so; the discarded tree is
# gone and holds nothing.
ws=$(berth new y)
(cd "$ws" && commit_file y.c "int y;")
tip=$(git rev-parse berth/y)
git worktree add -q --force "$T/elsewhere" berth/y
out=$(berth discard y 2>&1)
assert_contains "$out" "branch berth/y is checked out in another worktree: kept"
assert_eq "$(git rev-parse berth/y)" "$tip" "the branch kept"
assert_eq "$(git -C "$T/elsewhere" symbolic-ref HEAD)" refs/heads/berth/y
assert_eq "$(git worktree list --porcelain | grep -c '^branch refs/heads/berth/y$')" 1 "worktrees on berth/y"
[[ ! -e $ws ]] || { echo "the discarded tree is still there: $ws" >&2; false; }
[[ $(git for-each-ref --format='%(refname)' refs/berth/trash/y/) == refs/berth/trash/y/* ]]
assert_eq "$(git show "$(git for-each-ref --format='%(refname)' refs/berth/trash/y/):y.c")" "int y;"
git worktree remove --force "$T/elsewhere"

# A branch of the agent's own, checked out in the workspace: berth's branch goes, the agent's
# stays where it was, and nothing holds either.
ws=$(berth new z)
git -C "$ws" checkout -q -b agent-feature
(cd "$ws" && commit_file z.c "int z;")
feature=$(git rev-parse agent-feature)
berth discard z >/dev/null
not 1 git rev-parse --verify -q refs/heads/berth/z >/dev/null
assert_eq "$(git rev-parse agent-feature)" "$feature" "the agent's branch"
assert_not_contains "$(git worktree list --porcelain)" "agent-feature"
ws=$(berth restore z)
assert_eq "$(cat "$ws/z.c")" "int z;" "restored"

# The same for a fork's attempts discarded together (one transaction for all): the branch held
# elsewhere is kept and said so, the other goes.
berth fork t -n 2 >/dev/null
for i in 1 2; do (cd "$(berth path "t-$i")" && commit_file "a$i.c" "int a$i;"); done
tip2=$(git rev-parse berth/t-2)
git worktree add -q --force "$T/elsewhere" berth/t-2
out=$(berth discard t 2>&1)
assert_contains "$out" "branch berth/t-2 is checked out in another worktree: kept"
not 1 git rev-parse --verify -q refs/heads/berth/t-1 >/dev/null
assert_eq "$(git rev-parse berth/t-2)" "$tip2" "the branch kept"
assert_eq "$(git worktree list --porcelain | grep -c '^branch refs/heads/berth/t-')" 1 "worktrees on berth/t-*"
git worktree remove --force "$T/elsewhere"
# And with nothing in the way: both go, and nothing holds either.
berth fork u -n 2 >/dev/null
berth discard u >/dev/null
for i in 1 2; do not 1 git rev-parse --verify -q "refs/heads/berth/u-$i" >/dev/null; done
assert_not_contains "$(git worktree list --porcelain)" "refs/heads/berth/u-"

assert_eq "$(checkout)" "$user" "the user's checkout"

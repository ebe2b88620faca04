# After the user moves the repository (and runs `git worktree repair`), the warm pool still
# serves `new`: its slots are re-linked to the admin dirs git has now, in the same root.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo proj
export BERTH_POOL_SIZE=1
berth pool fill >/dev/null
x=$(berth new x)
wait_for_fillers
cd "$T"
mv proj proj2
cd proj2
git worktree repair >/dev/null 2>&1

y=$(berth new y)
assert_eq "$(dirname "$y")" "$(dirname "$x")"
# Taken from the pool: the workspace kept the slot's admin dir, under the moved repository.
admin=$(git -C "$y" rev-parse --absolute-git-dir)
assert_contains "$admin" "$T/proj2/.git/worktrees/slot-"
assert_eq "$(jq -r .git_dir .git/berth/workspaces/y.json)" "$admin"
echo work >"$y/w.txt"
assert_eq "$(berth --json status y | jq -r '.state, .changes.untracked' | tr '\n' ' ')" "ready 1 "
wait_for_fillers
berth discard y >/dev/null
pool_quiesce
[[ ! -e $y ]]
assert_eq "$(git show "$(git for-each-ref --format='%(refname)' refs/berth/trash/y/):w.txt")" work

# A workspace made from a warm pool slot is indistinguishable from one made cold (--no-pool): the
# same files, modes and symlinks; a clean status; a settled index; HEAD on its branch; locked with
# berth's reason; the post-checkout hook run; .worktreeinclude set-up done.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app 300
printf '.env\n' >.gitignore
printf '.env\n' >.worktreeinclude
mkdir -p deep/er/est && printf 'x\n' >deep/er/est/leaf.txt
ln -s ../README.md deep/link
printf '\000\001\002binary' >deep/blob.bin
git add -A && git commit -qm more
echo SECRET=1 >.env
cat >.git/hooks/post-checkout <<HOOK
#!/bin/sh
echo "\$PWD \$3" >>"$T/hook.log"
HOOK
chmod +x .git/hooks/post-checkout
head=$(git rev-parse HEAD)

export BERTH_POOL_SIZE=2
out=$(berth --json pool fill)
assert_eq "$(jq -r .ready <<<"$out")" 2 "ready slots"

warm=$(berth new warm 2>/dev/null)
# It came from the pool: its admin dir is a slot's.
assert_contains "$(git -C "$warm" rev-parse --absolute-git-dir)" "/worktrees/slot-"
cold=$(berth new --no-pool cold 2>/dev/null)
assert_eq "$(git -C "$cold" rev-parse --absolute-git-dir)" "$(git rev-parse --absolute-git-dir)/worktrees/cold"

for name in warm cold; do
  ws=$(berth path "$name")
  assert_eq "$(git -C "$ws" status --porcelain --untracked-files=all)" "" "status of $name"
  assert_eq "$(git -C "$ws" symbolic-ref HEAD)" "refs/heads/berth/$name"
  assert_eq "$(git -C "$ws" rev-parse HEAD)" "$head"
  assert_eq "$(lock_reason "$ws")" "berth: workspace $name (remove with \`berth discard\`)"
  assert_eq "$(cat "$ws/.env")" "SECRET=1" ".worktreeinclude copy in $name"
  assert_contains "$(cat "$T/hook.log")" "$ws 1"
  assert_eq "$(berth --json status "$name" | jq -r .state)" ready
done
assert_index_settled "$warm"
# Same files, modes, symlinks and contents (tree_digest skips .git).
assert_eq "$(tree_digest "$warm")" "$(tree_digest "$cold")" "warm vs cold tree"
[[ -x $warm/bin/run.sh ]]
assert_eq "$(readlink "$warm/deep/link")" ../README.md
# The slot is gone from the pool, and berth lists the workspace like any other.
wait_for_fillers
assert_eq "$(berth --json list | jq -r '[.[].name] | sort | join(",")')" "cold,warm"
assert_eq "$(git worktree list --porcelain | grep -c '^worktree .*/\.pool/')" 2 "refilled slots"
pool_quiesce

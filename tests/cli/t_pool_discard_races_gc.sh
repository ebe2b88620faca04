# With a warm pool, discarded trees are deleted (or recycled) by the background filler. With the
# user's `git gc --prune=now` running in a loop meanwhile, the filler deletes a tree only once its
# snapshot is whole: afterwards every trash ref restores its workspace byte for byte.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app
export BERTH_POOL_SIZE=1
berth pool fill >/dev/null
n=5
for ((i = 0; i < n; i++)); do
  ws=$(berth new "w$i")
  mkdir -p "$ws/new/d$i"
  for ((j = 0; j < 3; j++)); do echo "untracked $i $j $RANDOM" >"$ws/new/d$i/f$j.txt"; done
  echo "changed $i" >>"$ws/docs/guide.md"
  tree_digest "$ws" >"$T/digest.w$i"
done
root=$(dirname "$ws")
wait_for_fillers

discard_while_gc $n
wait_for_fillers
stop_gc
for i in "${failed[@]}"; do berth discard "w$i" >/dev/null; done
pool_quiesce
export BERTH_POOL_SIZE=0
# No trash ref names a missing object (git gc itself would fail on one), and no tree is left.
git gc -q --prune=now
assert_eq "$(find "$root/.trash" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)" 0 "trees left in .trash"

for ((i = 0; i < n; i++)); do
  ws=$(berth restore "w$i")
  assert_eq "$(tree_digest "$ws")" "$(cat "$T/digest.w$i")" "restored w$i"
done

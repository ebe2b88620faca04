# A workspace with a submodule (relative links, as `git submodule` writes them) discarded with a
# pool: the tree waits in .trash/ (one level deeper) for the background deleter. `doctor` finds
# nothing wrong, and with the deleter gone `doctor --repair` verifies and deletes the trees (the
# submodule's links were made absolute when the tree moved aside, so the full look can read it);
# restore brings the submodule's work back.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo_with_submodule
export BERTH_POOL_SIZE=1
for n in a b; do
  ws=$(berth new $n)
  echo "mine $n" >"$ws/u.txt"
  echo "sub $n" >"$ws/third_party/x/sub.txt"
done
wait_for_fillers
# The deleter is kept waiting (it takes this lock before it looks at a tree), then dies before
# its turn: `doctor --repair` looks at the trees itself.
pool_dir=$(git rev-parse --git-common-dir)/berth/pool
flock "$pool_dir/reap.lock" -c "touch $T/held; i=0; while [ ! -e $T/let-go ] && [ -d $T ] &&
  [ \$i -lt 1200 ]; do sleep 0.05; i=\$((i + 1)); done" &
holder=$!
wait_for_file "$T/held"
for n in a b; do berth discard $n >/dev/null 2>&1; done
trash=$(dirname "$ws")/.trash
assert_eq "$(ls -A "$trash" | wc -l)" 2 "trees waiting"
out=$(berth doctor 2>&1) || { echo "$out" >&2; false; }
assert_not_contains "$out" "problem:"
assert_contains "$out" "waits for deletion"
for ((i = 0; i < 200; i++)); do (($(pool_fillers | wc -l) >= 1)) && break; sleep 0.05; done
for pid in $(pool_fillers); do kill -9 "$pid"; done
touch "$T/let-go"
wait "$holder"
wait_for_fillers
out=$(berth doctor --repair 2>&1) || { echo "$out" >&2; false; }
assert_not_contains "$out" "problem:"
assert_eq "$(grep -c 'snapshot verified' <<<"$out")" 2 "both trees verified and removed"
assert_eq "$(ls -A "$trash" | wc -l)" 0 "the trees aside are deleted"
assert_not_contains "$(git worktree list)" .trash
for n in a b; do
  berth restore $n >/dev/null 2>&1
  ws=$(berth path $n)
  assert_eq "$(cat "$ws/u.txt")" "mine $n"
  assert_eq "$(cat "$ws/third_party/x/sub.txt")" "sub $n"
done
pool_quiesce

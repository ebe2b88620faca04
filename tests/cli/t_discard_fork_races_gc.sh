#!/usr/bin/env bash
# The user's `git gc --prune=now` racing the batched discard of a fork's attempts (`discard TASK`,
# as pick discards its siblings: their trash refs made in one transaction, checked whole in one
# pass): each attempt either goes to the trash with a whole snapshot (taken again when the check
# finds objects pruned) or stays whole, and every trash ref restores its attempt byte for byte.
. "$(dirname "$0")/common.sh"
make_repo app
n=4
berth fork race -n $n >/dev/null
for ((i = 1; i <= n; i++)); do
  ws=$(berth path "race-$i")
  # Fresh content in each: blobs, trees and commits no ref holds until the snapshot's ref.
  mkdir -p "$ws/new/d$i"
  for ((j = 0; j < 3; j++)); do echo "untracked $i $j $RANDOM" >"$ws/new/d$i/f$j.txt"; done
  echo "changed $i" >>"$ws/docs/guide.md"
  echo "staged $i" >"$ws/staged.txt"
  git -C "$ws" add staged.txt
  tree_digest "$ws" >"$T/digest.$i"
done

(while [[ ! -e $T/stop-gc ]]; do git gc -q --prune=now 2>/dev/null || true; done) &
gc_loop=$!
berth discard race >"$T/out" 2>"$T/err" || true
touch "$T/stop-gc"
wait "$gc_loop"
# An attempt whose snapshot kept losing objects is still there, whole (the discard said why), as
# a discard of it alone would leave it (t_discard_races_gc).
for ((i = 1; i <= n; i++)); do
  if [[ -n $(berth --json list | jq -r ".[] | select(.name == \"race-$i\") | .name") ]]; then
    grep -q "race-$i: " "$T/err" || { cat "$T/err" >&2; false; }
    assert_eq "$(tree_digest "$(berth path "race-$i")")" "$(cat "$T/digest.$i")" "race-$i kept"
    berth discard "race-$i" >/dev/null
  fi
done
# No trash ref names a missing object (git gc itself would fail on one).
git gc -q --prune=now
for ((i = 1; i <= n; i++)); do
  git rev-list --objects --missing=print "$(git for-each-ref --format='%(objectname)' "refs/berth/trash/race-$i/")" |
    { ! grep -q '^?'; } || {
    echo "snapshot of race-$i lost objects" >&2
    false
  }
  ws=$(berth restore "race-$i")
  assert_eq "$(tree_digest "$ws")" "$(cat "$T/digest.$i")" "restored race-$i"
  assert_eq "$(git -C "$ws" diff --cached --name-only)" staged.txt
done

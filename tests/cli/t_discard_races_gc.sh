# The user's `git gc --prune=now` racing discards: objects a snapshot writes are unreachable until
# its trash ref exists, and a prune in between deletes them. Before a tree is deleted, berth checks
# that every object of its snapshot is there (re-taking it if not): afterwards every trash ref
# restores its workspace byte for byte.
. "$(dirname "$0")/common.sh"
make_repo app
n=6
for ((i = 0; i < n; i++)); do
  ws=$(berth new "w$i")
  # Fresh content in each: blobs, trees and commits no ref holds until the snapshot's ref.
  mkdir -p "$ws/new/d$i"
  for ((j = 0; j < 3; j++)); do echo "untracked $i $j $RANDOM" >"$ws/new/d$i/f$j.txt"; done
  echo "changed $i" >>"$ws/docs/guide.md"
  echo "staged $i" >"$ws/staged.txt"
  git -C "$ws" add staged.txt
  tree_digest "$ws" >"$T/digest.w$i"
done

# gc in a loop, as long as the discards run. A discard either saves a whole snapshot and deletes
# the tree, or (its objects pruned again and again) fails having deleted nothing: the workspace is
# still there, whole, and is discarded once the gc is over.
discard_while_gc $n
stop_gc
echo "discards refused while gc ran: ${#failed[@]} of $n" >&2
for i in "${failed[@]}"; do
  assert_eq "$(tree_digest "$(berth path "w$i")")" "$(cat "$T/digest.w$i")" "w$i after a refused discard"
  berth discard "w$i" >/dev/null
done
# No trash ref names a missing object (git gc itself would fail on one).
git gc -q --prune=now

for ((i = 0; i < n; i++)); do
  git rev-list --objects --missing=print "$(git for-each-ref --format='%(objectname)' "refs/berth/trash/w$i/")" |
    { ! grep -q '^?'; } || {
    echo "snapshot of w$i lost objects" >&2
    false
  }
  ws=$(berth restore "w$i")
  assert_eq "$(tree_digest "$ws")" "$(cat "$T/digest.w$i")" "restored w$i"
  assert_eq "$(git -C "$ws" diff --cached --name-only)" staged.txt
done

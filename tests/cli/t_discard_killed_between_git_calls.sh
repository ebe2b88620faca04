# A `berth discard` killed (SIGKILL) where no git call is to kill it at
# (BERTH_TEST_FAIL_AT=STEP:kill, for tests only): between the snapshot and the move aside (`discard-snapshot`), and between the
# rename of the tree into .trash and the rewrite of its admin dir's `gitdir` (`discard-moved`).
# Doctor tells the truth; the next command or `doctor --repair` settles it to exactly before or
# after; nothing is lost, the name works at once, nothing is left behind. (A kill between the
# rename and `gitdir` left the tree in .trash for ever, unseen by doctor; a retried discard after
# a kill past the snapshot added a second, identical snapshot to the trash.)
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/git_fault_helpers.sh"
make_repo app 10
berth new other >/dev/null
other=$(tree_digest "$(berth path other)")
user=$(user_checkout)
make_x() {
  local ws
  ws=$(berth new x)
  echo agent >"$ws/committed.txt"
  git -C "$ws" add committed.txt
  git -C "$ws" commit -q -m agent
  echo edit >>"$ws/README.md"
  echo new >"$ws/untracked.txt"
  echo "$ws"
}
snapshots() { git for-each-ref --format='%(refname)' refs/berth/trash/x/; }
trash_dir=$(dirname "$(berth path other)")/.trash
# check_gone: discarded, its work restorable byte for byte, then the trash emptied again.
check_gone() {
  assert_eq "$(workspace_state x)" gone "$1"
  assert_eq "$(snapshots | wc -l)" 1 "one snapshot ($1)"
  assert_eq "$(tree_digest "$(berth restore x)")" "$digest" "restored ($1)"
  assert_eq "$(git rev-parse berth/x)" "$tip"
  berth discard x >/dev/null 2>&1
  snapshots | xargs -r -n1 git update-ref -d
  assert_eq "$(user_checkout)" "$user" "the user's checkout ($1)"
  assert_eq "$(tree_digest "$(berth path other)")" "$other"
}

# Killed between the rename into .trash and the gitdir rewrite; settled by the next command, or
# by doctor --repair directly.
for settle in next repair; do
  ws=$(make_x)
  digest=$(tree_digest "$ws")
  tip=$(git rev-parse berth/x)
  BERTH_TEST_FAIL_AT=discard-moved:kill not 137 berth discard x >/dev/null
  [[ ! -e $ws && -n $(ls "$trash_dir") ]] # caught between the two halves
  doctor_tells_truth x
  if [[ $settle == next ]]; then
    berth list >/dev/null
    assert_eq "$(workspace_state x)" gone "after the next command"
    # The tree aside is git's again, waiting for the deleter: doctor says so, --repair deletes it.
    grep -q "^worktree $trash_dir/" <<<"$(git worktree list --porcelain)"
    berth doctor >/dev/null
  fi
  berth doctor --repair >/dev/null
  berth doctor >/dev/null
  assert_eq "$(ls -A "$trash_dir")" "" "nothing left in .trash ($settle)"
  check_gone "discard-moved, $settle"
done

# Killed after the snapshot, before the move aside: the workspace is exactly as before, and the
# retried discard reuses the snapshot (one entry in the trash, not two).
ws=$(make_x)
digest=$(tree_digest "$ws")
tip=$(git rev-parse berth/x)
BERTH_TEST_FAIL_AT=discard-snapshot:kill not 137 berth discard x >/dev/null
first=$(snapshots)
assert_eq "$(wc -l <<<"$first")" 1
doctor_tells_truth x
berth list >/dev/null
assert_eq "$(workspace_state x)" whole "after the next command"
assert_eq "$(tree_digest "$ws")" "$digest"
berth doctor >/dev/null
berth discard x >/dev/null 2>&1
assert_eq "$(snapshots)" "$first" "the retried discard's snapshot"
check_gone "discard-snapshot"

# Changed in between: the retried discard keeps both (they differ).
ws=$(make_x)
BERTH_TEST_FAIL_AT=discard-snapshot:kill not 137 berth discard x >/dev/null
echo more >>"$ws/untracked.txt"
berth discard x >/dev/null 2>&1
assert_eq "$(snapshots | wc -l)" 2 "two different snapshots"
assert_eq "$(cat "$(berth restore x)/untracked.txt")" "$(printf 'new\nmore')"

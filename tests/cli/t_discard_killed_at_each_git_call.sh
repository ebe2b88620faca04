# A `berth discard` killed (SIGKILL: berth alone; its whole process group) before each of its git
# calls leaves a state `berth doctor` tells truly, and `berth doctor --repair` settles it to
# exactly before (the workspace whole: files, branch) or exactly after (no record, no branch, the
# work in the trash, `restore` brings it back byte for byte); the user's checkout is untouched,
# and the name works at once. (A kill after the tree was moved aside used to leave `berth/x`:
# doctor said "all good" while `new x` and `restore x` failed with branch_exists.)
# (berth alone here; its whole process group in t_discard_group_killed_at_each_git_call,
# which runs this loop with FAULT_MODES=group: one test each keeps each under ctest's time limit.)
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/git_fault_helpers.sh"
make_repo app 10
berth new other >/dev/null # a workspace no crash may touch
ws=$(berth new x)
echo agent >"$ws/committed.txt"
git -C "$ws" add committed.txt
git -C "$ws" commit -q -m agent
echo edit >>"$ws/README.md"
echo new >"$ws/untracked.txt"
digest=$(tree_digest "$ws")
tip=$(git rev-parse berth/x)
user=$(user_checkout)
other=$(tree_digest "$(berth path other)")

FAULT_COMMON=$(git rev-parse --path-format=absolute --git-common-dir)
xpath=$ws

# At every call (berth alone, or its group: FAULT_MODES). Each round is kept cheap (the crash
# loops run hundreds of rounds): `doctor --repair` settles what doctor found and, by its exit
# status, says nothing is left (not run when doctor found nothing); the user's checkout and the
# other workspace, which no round may touch, are compared after each mode's rounds (a change
# would still be there).
for mode in ${FAULT_MODES:-alone}; do
  for ((k = 1; ; k += CRASH_STRIDE)); do
    crash_at_git_call "$k" "$mode" discard x || break
    k=$FAULT_CALL
    state=$(workspace_state x)
    doctor_tells_truth x "$state"
    if [[ $DOCTOR_CLEAN != yes ]]; then
      berth doctor --repair >/dev/null || { berth doctor --repair >&2; false; }
      state=$(workspace_state x)
    fi
    case $state in
    whole)
      assert_eq "$(tree_digest "$xpath")" "$digest" "files after a kill at call $k ($mode)"
      assert_eq "$(git rev-parse berth/x)" "$tip" "branch after a kill at call $k ($mode)"
      ;;
    gone)
      ws=$(berth restore x)
      assert_eq "$ws" "$xpath"
      assert_eq "$(tree_digest "$ws")" "$digest" "restored after a kill at call $k ($mode)"
      assert_eq "$(git rev-parse berth/x)" "$tip"
      ;;
    *)
      echo "kill at git call $k ($mode: $(cat "$FAULT_DIR/killed-at")) left $state after doctor --repair" >&2
      false
      ;;
    esac
  done
  # It ran to the end at last: discarded, and the name works.
  assert_eq "$(cat "$FAULT_DIR/status")" 0 "discard without a kill"
  (($(fault_calls) > 10)) ||
    { echo "only $(fault_calls) git calls seen: is the git wrapper used?" >&2; false; }
  assert_eq "$(workspace_state x)" gone
  ws=$(berth restore x)
  assert_eq "$(tree_digest "$ws")" "$digest"
  assert_eq "$(user_checkout)" "$user" "the user's checkout after the kills ($mode)"
  assert_eq "$(tree_digest "$(berth path other)")" "$other"
done

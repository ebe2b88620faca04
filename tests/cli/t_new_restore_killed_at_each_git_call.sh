# `berth new` and `berth restore` killed (SIGKILL: berth alone, then its whole process group)
# before each of their git calls: doctor tells the truth, `berth path` never hands out the
# half-made workspace, and `doctor --repair` (or the next command) leaves exactly nothing (the
# snapshot a restore started from still there) or the whole workspace; the name works at once.
# (berth alone here; its whole process group in t_new_restore_group_killed_at_each_git_call,
# which runs this loop with FAULT_MODES=group: one test each keeps each under ctest's time limit.)
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/git_fault_helpers.sh"
make_repo app 10
berth new other >/dev/null
other=$(tree_digest "$(berth path other)")
ws=$(berth new x)
xpath=$ws
fresh=$(tree_digest "$ws")
echo work >"$ws/work.txt"
restored=$(tree_digest "$ws")
berth discard x >/dev/null 2>&1
snap=$(git for-each-ref --format='%(refname)' refs/berth/trash/x/)
# Only the first snapshot stays in the trash (discards of fresh workspaces add their own).
keep_one_snapshot() {
  git for-each-ref --format="%(refname)" refs/berth/trash/x/ | { grep -vx "$snap" || true; } |
    xargs -r -n1 git update-ref -d
}
user=$(user_checkout)

FAULT_COMMON=$(git rev-parse --path-format=absolute --git-common-dir)

# Each op killed at every call (berth alone, or its group: FAULT_MODES). Each round is kept
# cheap (the crash loops run hundreds of rounds): doctor --repair only where doctor found
# something, the user's checkout compared after each loop (a change would still be there).
for op in new restore; do
  want=$fresh
  [[ $op == restore ]] && want=$restored
  for mode in ${FAULT_MODES:-alone}; do
    for ((k = 1; ; k += CRASH_STRIDE)); do
      crash_at_git_call "$k" "$mode" "$op" x || break
      k=$FAULT_CALL
      doctor_tells_truth x
      # path settles what the dead command left first: it answers only for a whole workspace.
      if path=$(berth path x 2>/dev/null); then
        assert_eq "$(workspace_state x)" whole "path answered after $op killed at call $k"
      fi
      if [[ $DOCTOR_CLEAN != yes ]]; then
        berth doctor --repair >/dev/null || { berth doctor --repair >&2; false; }
      fi
      case $(workspace_state x) in
      whole)
        assert_eq "$(tree_digest "$xpath")" "$want" "$op killed at call $k ($mode)"
        berth discard x >/dev/null 2>&1
        # (A fresh workspace's snapshot would be the newest; a restored one's is the same.)
        [[ $op == restore ]] || keep_one_snapshot
        ;;
      gone)
        # The snapshot is still there, and the name works at once.
        if [[ $op == restore ]]; then
          assert_eq "$(tree_digest "$(berth restore x)")" "$restored" "restore after a kill at $k ($(cat "$FAULT_DIR/killed-at"))"
          berth discard x >/dev/null 2>&1
        fi
        ;;
      *)
        echo "$op killed at call $k ($mode: $(cat "$FAULT_DIR/killed-at")) left $(workspace_state x)" >&2
        false
        ;;
      esac
    done
    assert_eq "$(cat "$FAULT_DIR/status")" 0 "$op without a kill"
    (($(fault_calls) > 5)) ||
      { echo "only $(fault_calls) git calls seen: is the git wrapper used?" >&2; false; }
    assert_eq "$(tree_digest "$xpath")" "$want"
    berth discard x >/dev/null 2>&1
    keep_one_snapshot
    assert_eq "$(git for-each-ref --format='%(refname)' refs/berth/trash/x/)" "$snap"
    assert_eq "$(user_checkout)" "$user" "the user's checkout after $op killed ($mode)"
    assert_eq "$(tree_digest "$(berth path other)")" "$other"
  done
done

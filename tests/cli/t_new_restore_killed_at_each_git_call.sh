# `berth new` and `berth restore` killed (SIGKILL: berth alone; its whole process group at some
# calls) before each of their git calls: doctor tells the truth, `berth path` never hands out the
# half-made workspace, and `doctor --repair` (or the next command) leaves exactly nothing (the
# snapshot a restore started from still there) or the whole workspace; the name works at once.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/git_fault_helpers.sh"
make_repo app 10
berth new other >/dev/null
ws=$(berth new x)
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

for op in new restore; do
  want=$fresh
  [[ $op == restore ]] && want=$restored
  for ((k = 1; ; k++)); do
    mode=alone
    ((k % 3 == 0)) && mode=group
    crash_at_git_call "$k" "$mode" "$op" x || break
    doctor_tells_truth x
    # path settles what the dead command left first: it answers only for a whole workspace.
    if path=$(berth path x 2>/dev/null); then
      assert_eq "$(workspace_state x)" whole "path answered after $op killed at call $k"
    fi
    if [[ $(workspace_state x) == between* ]]; then
      berth doctor --repair >/dev/null || { berth doctor --repair >&2; false; }
    fi
    berth doctor >/dev/null || { berth doctor >&2; false; }
    case $(workspace_state x) in
    whole)
      assert_eq "$(tree_digest "$(berth path x)")" "$want" "$op killed at call $k ($mode)"
      berth discard x >/dev/null 2>&1
      ;;
    gone) ;;
    *)
      echo "$op killed at call $k ($mode: $(cat "$FAULT_DIR/killed-at")) left $(workspace_state x)" >&2
      false
      ;;
    esac
    # The newest snapshot is the one to restore (a discard above made another of the same work).
    keep_one_snapshot
    [[ $op == new ]] || assert_eq "$(tree_digest "$(berth restore x)")" "$restored" "restore after a kill at $k ($(cat "$FAULT_DIR/killed-at"))"
    [[ $op == new ]] || berth discard x >/dev/null 2>&1
    assert_eq "$(user_checkout)" "$user" "the user's checkout after $op killed at call $k"
  done
  assert_eq "$(cat "$FAULT_DIR/status")" 0 "$op without a kill"
  ((k > 5)) || { echo "only $k git calls seen: is the git wrapper used?" >&2; false; }
  assert_eq "$(tree_digest "$(berth path x)")" "$want"
  berth discard x >/dev/null 2>&1
  keep_one_snapshot
done

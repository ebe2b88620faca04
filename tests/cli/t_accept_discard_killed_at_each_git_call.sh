# An accept killed (SIGKILL: berth alone; its whole process group with FAULT_MODES=group) before
# each git call of its discard phase (the change has landed; the workspace goes to the trash):
# doctor tells the truth, and `doctor --repair` leaves the landed workspace whole or discarded
# (its snapshot restorable), never `berth/x` without a workspace (then `new x`/`restore x` failed with
# branch_exists while doctor said "all good"). The landed change stays landed.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/git_fault_helpers.sh"
make_repo app 10
git branch release
release=$(git rev-parse release)
user=$(user_checkout)
make_x() {
  git update-ref refs/heads/release "$release"
  local ws
  ws=$(berth new x --base release)
  echo landed >"$ws/landed.txt"
}
accept=(accept x --strategy squash --into release)
make_x
keep=$(count_git_calls "${accept[@]}" --keep)
berth discard x >/dev/null 2>&1
make_x
all=$(count_git_calls "${accept[@]}")
((all > keep + 5)) || { echo "accept: $all git calls, with --keep $keep" >&2; false; }

FAULT_COMMON=$(git rev-parse --path-format=absolute --git-common-dir)

# Every call of the discard phase, berth alone (its whole process group:
# t_accept_discard_group_killed_at_each_git_call, the same loop, which sets FAULT_MODES; one
# test each keeps each under ctest's time limit). Each round is kept cheap: doctor --repair only
# where doctor found something, the user's checkout compared after the loop.
for mode in ${FAULT_MODES:-alone}; do
  for ((k = keep + 1; ; k += CRASH_STRIDE)); do
    make_x
    crash_at_git_call "$k" "$mode" "${accept[@]}" || break
    k=$FAULT_CALL
    [[ $(git cat-file blob release:landed.txt) == landed ]] || {
      echo "not landed before the kill at call $k" >&2
      false
    }
    state=$(workspace_state x)
    doctor_tells_truth x "$state"
    if [[ $DOCTOR_CLEAN != yes ]]; then
      berth doctor --repair >/dev/null || { berth doctor --repair >&2; false; }
      state=$(workspace_state x)
    fi
    case $state in
    whole) berth discard x >/dev/null 2>&1 ;;
    gone) ;;
    *)
      echo "accept killed at call $k ($mode: $(cat "$FAULT_DIR/killed-at")) left $state" >&2
      false
      ;;
    esac
    # The work is in the trash (and the next make_x shows that the name works). (The snapshots
    # stay until the trees discarded aside are deleted: doctor keeps a tree it cannot verify.)
    newest=$(git for-each-ref --sort=-refname --count=1 --format='%(refname)' refs/berth/trash/x/)
    assert_eq "$(git cat-file blob "$newest:landed.txt")" landed "snapshot after a kill at call $k"
    trim_trash # (doctor reads the trash: not every earlier round's snapshot again)
  done
  assert_eq "$(cat "$FAULT_DIR/status")" 0 "accept without a kill"
  assert_eq "$(workspace_state x)" gone
  assert_eq "$(cat "$(berth restore x)/landed.txt")" landed
  berth discard x >/dev/null 2>&1
  berth doctor --repair >/dev/null
  git for-each-ref --format='%(refname)' refs/berth/trash/x/ | xargs -r -n1 git update-ref -d
  assert_eq "$(user_checkout)" "$user" "the user's checkout after accept killed ($mode)"
done

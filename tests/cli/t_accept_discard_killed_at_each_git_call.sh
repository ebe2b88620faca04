# An accept killed (SIGKILL: berth alone; its whole process group at some calls) before each git
# call of its discard phase (the change has landed; the workspace goes to the trash): doctor tells
# the truth, and `doctor --repair` leaves the landed workspace whole or discarded (its snapshot
# restorable), never `berth/x` without a workspace (then `new x`/`restore x` failed with
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

# Every other call: the discard's own calls are each covered by t_discard_killed_at_each_git_call;
# here what matters is that a landed workspace's discard is settled the same way.
for ((k = keep + 1; ; k += 2)); do
  make_x
  mode=alone
  ((k % 3 == 0)) && mode=group
  crash_at_git_call "$k" "$mode" "${accept[@]}" || break
  assert_eq "$(git show release:landed.txt)" landed "landed before the kill at call $k"
  doctor_tells_truth x
  if [[ $(workspace_state x) == between* ]]; then
    berth doctor --repair >/dev/null || { berth doctor --repair >&2; false; }
  else
    berth list >/dev/null
  fi
  berth doctor >/dev/null || { berth doctor >&2; false; }
  case $(workspace_state x) in
  whole) berth discard x >/dev/null 2>&1 ;;
  gone) ;;
  *)
    echo "accept killed at call $k ($mode: $(cat "$FAULT_DIR/killed-at")) left $(workspace_state x)" >&2
    false
    ;;
  esac
  # The work is in the trash (and the next make_x shows that the name works).
  newest=$(git for-each-ref --sort=-refname --count=1 --format='%(refname)' refs/berth/trash/x/)
  assert_eq "$(git show "$newest:landed.txt")" landed "snapshot after a kill at call $k"
  git for-each-ref --format='%(refname)' refs/berth/trash/x/ | xargs -r -n1 git update-ref -d
  assert_eq "$(user_checkout)" "$user" "the user's checkout after accept killed at call $k"
done
assert_eq "$(cat "$FAULT_DIR/status")" 0 "accept without a kill"
assert_eq "$(workspace_state x)" gone
assert_eq "$(cat "$(berth restore x)/landed.txt")" landed

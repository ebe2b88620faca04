#!/usr/bin/env bash
# Ctrl-C during `berth pick` (SIGINT, SIGTERM, SIGHUP in turn, to berth's whole process group as a
# terminal sends it, at each git call: git_fault_helpers.sh's FAULT_MODE int|term|hup): the pick
# stops exactly before the landing (nothing changed, every attempt as it was) or exactly after it
# (the change staged in the checkout, the siblings kept or, too late to stop, in the trash), never
# half-way: exit 130 and a line saying which; no index.lock; `berth doctor` finds nothing with no
# repair; the user's own uncommitted work intact; the fork usable at once.
# The calls visited (git_fault_helpers.sh, refine_next): every third, and each call between two
# whose outcomes differ, so that every safe point pick stops at is visited and each boundary is
# found exactly. The outcomes, in the order of the calls: before the landing (accept's two safe
# points: the attempt held, the landing planned), after it with p-1 kept (accept's safe point
# after the landing), after it with p-1 discarded (pick's, after accept's discard of p-1), too
# late (the siblings' discard: no safe point after it).
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/git_fault_helpers.sh"
make_repo app 10
base=$(git rev-parse HEAD)
user_work
readme=$(sha256sum README.md)
before=$(user_checkout)
declare -A digest
# (20 files an attempt, not 60 as before: what a round sees does not depend on how long the
# landing's git calls take, t_accept_interrupted_at_each_git_call says why.)
make_fork() {
  berth fork p -n 3 -- sh -c 'mkdir gen; for i in $(seq 1 20); do echo "$BERTH_ATTEMPT $i" >gen/f$i.txt; done' >/dev/null 2>&1
  attempt_digests p
}

make_fork
keep=$(count_git_calls pick p-1 --keep-others)
clear_fork p
user_work_reset "$base"
make_fork
calls=$(FAULT_SCAN=1 count_git_calls pick p-1)
assert_eq "$(cat "$FAULT_DIR/status")" 0 "pick without a signal"
after=$(user_checkout)
[[ $after != "$before" ]] || { echo "the pick changed nothing in the checkout" >&2; false; }
clear_fork p
user_work_reset "$base"
((calls > keep + 10)) || { echo "pick: $calls git calls, with --keep-others $keep" >&2; false; }

modes=(int term hup)
seen_before=0 seen_after=0 round=0
refine_start
k=$NEXT_CALL
while ((k <= calls)); do
  make_fork
  mode=${modes[round++ % 3]}
  crash_at_git_call "$k" "$mode" pick p-1 || { clear_fork p && user_work_reset "$base" && break; }
  at="SIG${mode^^} at call $k ($(cat "$FAULT_DIR/killed-at"))"
  assert_eq "$(cat "$FAULT_DIR/status")" 130 "exit status after $at"
  [[ ! -e .git/index.lock ]] || { echo "index.lock left after $at" >&2; false; }
  err=$(cat "$FAULT_DIR/err")
  assert_eq "$(sha256sum README.md)" "$readme" "the user's edit after $at"
  assert_eq "$(cat notes.txt)" "my notes" "the user's untracked file after $at"
  berth doctor >/dev/null || { berth doctor >&2; echo "doctor after $at" >&2; false; }
  if [[ $err == *"interrupted: nothing was changed"* ]]; then
    ((++seen_before))
    outcome=before
    assert_eq "$(user_checkout)" "$before" "the checkout after $at"
    for i in 1 2 3; do
      assert_eq "$(workspace_state "p-$i")" whole "p-$i after $at"
      assert_eq "$(tree_digest "$(berth path "p-$i")")" "${digest[$i]}" "p-$i's files after $at"
    done
    # Usable at once: picked now, as if nothing had happened.
    berth pick p-1 >/dev/null 2>&1 || { echo "pick after $at refused" >&2; false; }
    assert_eq "$(user_checkout)" "$after" "the checkout of the pick after $at"
  elif [[ $err == *"interrupted after the landing"* ]]; then
    ((++seen_after))
    outcome=landed-kept
    p1=whole
    [[ $err == *"p-1 was discarded"* ]] && outcome=landed-discarded p1=gone
    assert_eq "$(workspace_state p-1)" "$p1" "p-1 after $at"
    assert_eq "$(user_checkout)" "$after" "the checkout after $at"
    assert_contains "$err" "berth discard p" "the line after $at"
    for i in 2 3; do
      assert_eq "$(workspace_state "p-$i")" whole "p-$i after $at"
      assert_eq "$(tree_digest "$(berth path "p-$i")")" "${digest[$i]}" "p-$i's files after $at"
    done
    # The rest, at once: the fork's attempts discarded.
    berth discard p >/dev/null 2>&1 || { echo "discard p after $at refused" >&2; false; }
  elif [[ $err == *"interrupted too late"* ]]; then
    ((++seen_after))
    outcome=late
    assert_eq "$(user_checkout)" "$after" "the checkout after $at"
  else
    echo "no line saying what was done after $at: $err" >&2
    false
  fi
  for i in 1 2 3; do
    assert_eq "$(workspace_state "p-$i")" gone "p-$i at the end after $at"
  done
  clear_fork p
  user_work_reset "$base"
  refine_next "$k" "$outcome"
  k=$NEXT_CALL
done
((seen_before > 0 && seen_after > 0 && k > calls / 2)) || {
  echo "stopped before the landing $seen_before times, after it $seen_after, of $k calls" >&2
  false
}

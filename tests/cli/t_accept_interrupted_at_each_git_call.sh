#!/usr/bin/env bash
# Ctrl-C during an accept of a change of 31 files into the user's checkout: SIGINT (SIGTERM,
# SIGHUP in turn) sent to berth's whole process group, as a terminal sends it to its foreground
# job, at each git call berth makes (the wrapper of git_fault_helpers.sh, FAULT_MODE int|term|hup,
# then lets that git run). Each time the accept stops exactly before the landing (nothing
# changed, the workspace as it was) or exactly after it (the change staged, the workspace kept),
# never half-way: exit 130 and a line saying which; no index.lock; `berth doctor` finds nothing,
# with no repair; the user's own uncommitted work byte for byte as it was; the workspace usable
# at once.
# The calls visited (git_fault_helpers.sh, refine_next): every third, and each call between two
# whose outcomes differ (before the landing, after it, too late), so that every safe point berth
# stops at is visited and each boundary is found exactly (67 calls: 24 before, 5 after the
# landing, the rest, the workspace's discard, too late).
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/git_fault_helpers.sh"
make_repo app 10
base=$(git rev-parse HEAD)
user_work
readme=$(sha256sum README.md)
before=$(user_checkout)
make_big() {
  berth new big >/dev/null
  local ws i
  ws=$(berth path big)
  mkdir "$ws/gen"
  # (30 files, not 300 as before: the wrapper signals before its git runs, so what a round sees
  # does not depend on how long the landing's git calls take, and a git of the landing that got
  # the signal would die before it began; the same rounds, in 55% of the CPU time.)
  for ((i = 0; i < 30; i++)); do echo "generated $i" >"$ws/gen/f$i.txt"; done
  echo "changed" >>"$ws/src/main.c"
  digest=$(tree_digest "$ws")
}

make_big
calls=$(FAULT_SCAN=1 count_git_calls accept big)
assert_eq "$(cat "$FAULT_DIR/status")" 0 "accept without a signal"
after=$(user_checkout)
[[ $after != "$before" ]] || { echo "the accept changed nothing in the checkout" >&2; false; }
user_work_reset "$base"
((calls > 10)) || { echo "only $calls git calls seen: is the git wrapper used?" >&2; false; }

modes=(int term hup)
seen_before=0 seen_after=0 round=0
refine_start
k=$NEXT_CALL
while ((k <= calls)); do
  make_big
  mode=${modes[round++ % 3]}
  # (The last calls may be background work of the discard that is not berth's own.)
  crash_at_git_call "$k" "$mode" accept big || { user_work_reset "$base" && break; }
  at="SIG${mode^^} at call $k ($(cat "$FAULT_DIR/killed-at"))"
  assert_eq "$(cat "$FAULT_DIR/status")" 130 "exit status after $at"
  [[ ! -e .git/index.lock ]] || { echo "index.lock left after $at" >&2; false; }
  err=$(cat "$FAULT_DIR/err")
  assert_eq "$(sha256sum README.md)" "$readme" "the user's edit after $at"
  assert_eq "$(cat notes.txt)" "my notes" "the user's untracked file after $at"
  if [[ $err == *"interrupted: nothing was changed"* ]]; then
    ((++seen_before))
    outcome=before
    assert_eq "$(user_checkout)" "$before" "the checkout after $at"
    assert_eq "$(workspace_state big)" whole "the workspace after $at"
    assert_eq "$(tree_digest "$(berth path big)")" "$digest" "the workspace's files after $at"
    berth doctor >/dev/null || { berth doctor >&2; echo "doctor after $at" >&2; false; }
    # Usable at once: accepted now, as if nothing had happened.
    berth accept big >/dev/null 2>&1 || { echo "accept after $at refused" >&2; false; }
    assert_eq "$(user_checkout)" "$after" "the checkout of the accept after $at"
  elif [[ $err == *"interrupted after the landing"* || $err == *"interrupted too late"* ]]; then
    ((++seen_after))
    outcome=late
    assert_eq "$(user_checkout)" "$after" "the checkout after $at"
    berth doctor >/dev/null || { berth doctor >&2; echo "doctor after $at" >&2; false; }
    if [[ $err == *"after the landing"* ]]; then
      outcome=landed
      assert_contains "$err" "berth discard big" "the line after $at"
      assert_eq "$(workspace_state big)" whole "the kept workspace after $at"
      berth discard big >/dev/null 2>&1 || { echo "discard after $at refused" >&2; false; }
    fi
    assert_eq "$(workspace_state big)" gone "the workspace after $at"
  else
    echo "no line saying what was done after $at: $err" >&2
    false
  fi
  user_work_reset "$base"
  trim_trash # (doctor reads the trash: not every earlier round's snapshot again)
  refine_next "$k" "$outcome"
  k=$NEXT_CALL
done
((seen_before > 0 && seen_after > 0 && k > calls / 2)) || {
  echo "stopped before the landing $seen_before times, after it $seen_after, of $k calls" >&2
  false
}

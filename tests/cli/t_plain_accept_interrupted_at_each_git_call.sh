#!/usr/bin/env bash
# Ctrl-C during an accept into a plain folder: SIGINT (SIGTERM, SIGHUP in turn) to berth's whole
# process group, as a terminal sends it, at each git call (git_fault_helpers.sh, FAULT_MODE
# int|term|hup). The accept stops before writing anything (the folder as it was, the workspace
# whole) or finishes writing (the folder as accepted), never half-way: exit 130 and a line saying
# which; `berth doctor` finds nothing with no repair; the user's own edits kept; never a .git.
# The calls visited (git_fault_helpers.sh, refine_next): every third, and each call between two
# whose outcomes differ (before the writing, after it, too late), so that every safe point berth
# stops at is visited and each boundary is found exactly.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/git_fault_helpers.sh"
. "$(dirname "$0")/plain_helpers.sh"
user_edits() { echo "mine" >"$F/user-new.txt"; }
agent_work() {
  (
    cd "$1"
    echo agent >>readme.txt
    mkdir -p gen && for i in $(seq 1 20); do echo "gen $i" >"gen/f$i.txt"; done
    mv src/lines.txt src/renamed.txt
    chmod -x src/run.sh
  )
}

FAULT_SCAN=1 plain_accept_setup
before=$BEFORE expected=$EXPECTED calls=$CALLS

modes=(int term hup)
seen_before=0 seen_after=0 round=0
refine_start
k=$NEXT_CALL
while ((k <= calls)); do
  make_x
  mode=${modes[round++ % 3]}
  crash_at_git_call "$k" "$mode" accept x || break
  at="SIG${mode^^} at call $k ($(cat "$FAULT_DIR/killed-at"))"
  assert_eq "$(cat "$FAULT_DIR/status")" 130 "exit status after $at"
  err=$(cat "$FAULT_DIR/err")
  [[ ! -e $F/.git ]] || { echo "a .git appeared after $at" >&2; false; }
  berth doctor >/dev/null || { berth doctor >&2; echo "doctor after $at" >&2; false; }
  assert_eq "$(cat "$F/user-new.txt")" mine "the user's file after $at"
  if [[ $err == *"interrupted: nothing was changed"* ]]; then
    ((++seen_before))
    outcome=before
    assert_eq "$(content_digest "$F")" "$before" "the folder after $at"
    assert_eq "$(berth --json status x | jq -r .state)" ready "the workspace after $at"
    berth accept x >/dev/null 2>&1 || { echo "accept after $at refused" >&2; false; }
    assert_eq "$(content_digest "$F")" "$expected" "the folder of the accept after $at"
  elif [[ $err == *"interrupted after the landing"* || $err == *"interrupted too late"* ]]; then
    ((++seen_after))
    outcome=after
    [[ $err == *"interrupted too late"* ]] && outcome=late
    assert_eq "$(content_digest "$F")" "$expected" "the folder after $at"
    assert_contains "$err" "written into $F" "the line after $at"
  else
    echo "no line saying what was done after $at: $err" >&2
    false
  fi
  berth discard --force x >/dev/null 2>&1 || true
  berth trash purge --older-than 0s >/dev/null
  refine_next "$k" "$outcome"
  k=$NEXT_CALL
done
((seen_before > 0 && seen_after > 0)) || {
  echo "stopped before the writing $seen_before times, after it $seen_after, of $k calls" >&2
  false
}

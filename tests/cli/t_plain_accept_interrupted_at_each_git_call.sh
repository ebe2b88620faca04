# Ctrl-C during an accept into a plain folder: SIGINT to berth's whole process group (as a
# terminal sends it) at each git call the accept makes (git_fault_helpers.sh, FAULT_MODE int).
# Each time: exit 130; the folder exactly as it was (the workspace ready) or exactly as accepted
# (the workspace landed, or discarded), never half-written; the line says which, in a plain
# folder's words (written, not staged); `berth doctor` finds nothing, with no repair.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/git_fault_helpers.sh"
. "$(dirname "$0")/plain_helpers.sh"
F=$T/folder
make_folder "$F"
cd "$F"
before=$(content_digest "$F")
make_x() {
  local ws
  ws=$(berth new x)
  echo agent >>"$ws/readme.txt"
  rm "$ws/src/lines.txt"
  mkdir "$ws/added" && echo new >"$ws/added/file"
}
make_x
calls=$(count_git_calls accept x)
assert_eq "$(cat "$FAULT_DIR/status")" 0 "accept without a signal"
after=$(content_digest "$F")
[[ $after != "$before" ]]

undo_accept() { # the folder back as it was before the accept (the next round accepts again)
  printf 'hello\n' >readme.txt
  printf 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n' >src/lines.txt
  rm -rf added
}
undo_accept
assert_eq "$(content_digest "$F")" "$before" "the folder undone"
stopped_before=0 stopped_after=0
for ((k = 1; k <= calls; k += CRASH_STRIDE)); do
  make_x
  crash_at_git_call "$k" int accept x || break
  assert_eq "$(cat "$FAULT_DIR/status")" 130 "exit status after Ctrl-C at call $k"
  err=$(cat "$FAULT_DIR/err")
  [[ $err != *staged* ]] || { echo "a plain folder's accept says 'staged' (call $k): $err" >&2; false; }
  berth doctor >/dev/null || { echo "doctor after Ctrl-C at call $k:" >&2; berth doctor >&2; false; }
  [[ ! -e $F/.git ]]
  now=$(content_digest "$F")
  state=$(berth --json list | jq -r '.[] | select(.name == "x") | .state')
  if [[ $now == "$before" ]]; then
    assert_eq "$state" ready "the workspace after Ctrl-C at call $k, nothing written"
    assert_contains "$err" "nothing was changed"
    stopped_before=$((stopped_before + 1))
    berth discard --force x >/dev/null
  elif [[ $now == "$after" ]]; then
    [[ $state == landed || -z $state ]] || { echo "workspace x $state after Ctrl-C at call $k" >&2; false; }
    assert_contains "$err" "written into $F"
    stopped_after=$((stopped_after + 1))
    [[ -z $state ]] || berth discard --force x >/dev/null
    undo_accept
  else
    echo "the folder is half-written after Ctrl-C at call $k" >&2
    false
  fi
  berth trash purge --older-than 0s >/dev/null
done
((stopped_before > 0 && stopped_after > 0)) || {
  echo "Ctrl-C stopped $stopped_before before and $stopped_after after the writing" >&2
  false
}

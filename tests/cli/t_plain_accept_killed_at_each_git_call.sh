# An accept into a plain folder killed (SIGKILL, berth alone; its whole process group with
# FAULT_MODES=group) before each git call it makes: afterwards the folder holds exactly what it
# held before the accept or exactly what the accept writes (never half of it, once `doctor
# --repair` has run where `doctor` found something), with the user's own edits of other files
# kept, and never a .git; the workspace is whole (accept it again) or landed, or discarded with
# its trash snapshot; and the next workspace starts from the folder as it is.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/git_fault_helpers.sh"
. "$(dirname "$0")/plain_helpers.sh"

# The user's own edits (files the workspace does not touch).
user_edits() {
  echo "user" >>"$F/empty"
  echo "mine" >"$F/user-new.txt"
}
# The agent's work: modified, created (nested), deleted, renamed, a mode, a symlink, a binary, a
# folder replaced by a file.
agent_work() {
  (
    cd "$1"
    echo agent >>readme.txt
    mkdir -p new/dir && echo fresh >new/dir/a.txt
    mv src/lines.txt src/renamed.txt
    chmod -x src/run.sh
    ln -sfn renamed.txt src/link
    printf 'more\0' >>src/blob.bin
    rm -rf src/deep && echo now-a-file >src/deep
  )
}

# The two states the folder may be left in: as it was (with the user's edits), and accepted.
plain_accept_setup
before=$BEFORE after=$EXPECTED calls=$CALLS
berth discard --force x >/dev/null 2>&1 || true

for mode in ${FAULT_MODES:-alone}; do
  for ((k = 1; k <= calls; k += CRASH_STRIDE)); do
    make_x
    crash_at_git_call "$k" "$mode" accept x || break
    at=$(cat "$FAULT_DIR/killed-at")
    doctor=0
    berth doctor >/dev/null 2>&1 || doctor=$?
    if [[ $doctor != 0 ]]; then
      berth doctor --repair >/dev/null || {
        echo "doctor --repair after a kill at call $k ($at):" >&2
        berth doctor --repair >&2
        false
      }
      berth doctor >/dev/null || {
        echo "doctor after --repair (killed at call $k: $at):" >&2
        berth doctor >&2
        false
      }
    fi
    [[ ! -e $F/.git ]]
    now=$(content_digest "$F")
    if [[ $now == "$before" ]]; then
      # Nothing written: the workspace is whole, and accepting it again lands it.
      assert_eq "$(berth --json status x | jq -r .state)" ready "state after a kill at call $k ($at)"
      berth accept x >/dev/null || { echo "accept again after a kill at call $k ($at)" >&2; false; }
    elif [[ $now == "$after" ]]; then
      # Written: the workspace is landed (kept) or discarded with its trash snapshot.
      state=$(berth --json list | jq -r '.[] | select(.name == "x") | .state')
      case $state in
      landed | ready) berth discard --force --no-trash x >/dev/null ;;
      "") [[ -n $(berth --json trash list | jq -r '.snapshots[] | select(.name == "x") | .name') ]] || {
        echo "no workspace and no trash of x after a kill at call $k ($at)" >&2
        false
      } ;;
      *) echo "workspace x $state after a kill at call $k ($at)" >&2 && false ;;
      esac
    else
      echo "the folder is half-written after a kill at call $k ($at)" >&2
      false
    fi
    assert_eq "$(content_digest "$F")" "$after" "the folder after a kill at call $k ($at)"
    # The next workspace starts from the folder as it is.
    ws=$(berth new check)
    assert_eq "$(cat "$ws/src/deep")" now-a-file "the next base after a kill at call $k ($at)"
    assert_eq "$(cat "$ws/user-new.txt")" mine "the user's file in the next base (call $k)"
    berth discard --force --no-trash check >/dev/null
    # (Kept cheap: no snapshot of what the round discards itself; the trees discarded aside
    # deleted, then the snapshots of those dropped.)
    berth doctor --repair >/dev/null 2>&1 || true
    berth trash purge --older-than 0s >/dev/null
  done
done

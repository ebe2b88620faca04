#!/usr/bin/env bash
# A pick of 1 of 3 attempts killed (SIGKILL: berth alone; its whole process group in
# t_pick_group_killed_at_each_git_call, FAULT_MODES=group) before each git call of its siblings'
# discard, which is one batch (their trash refs in one transaction, their branches deleted in
# another): afterwards each sibling is either whole (files, branch) or wholly in the trash
# (`restore` brings it back byte for byte, on its branch), the picked attempt has landed or not
# (then the siblings are untouched), and `berth doctor` is clean once `doctor --repair` has
# settled what the kill left. The user's checkout is never touched. (The calls before, the accept
# and the picked attempt's own discard, are those of t_accept_discard_killed_at_each_git_call.)
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/git_fault_helpers.sh"
make_repo app 10
git branch release
release=$(git rev-parse release)
user=$(user_checkout)
FAULT_COMMON=$(git rev-parse --path-format=absolute --git-common-dir)

# Three attempts, each with a commit, an edit and an untracked file.
declare -A digest tip
make_fork() {
  git update-ref refs/heads/release "$release"
  berth fork t -n 3 --base release >/dev/null
  local i ws
  for i in 1 2 3; do
    ws=$(berth path "t-$i")
    echo "attempt $i" >"$ws/landed-$i.txt"
    git -C "$ws" add "landed-$i.txt"
    git -C "$ws" commit -q -m "attempt $i"
    echo "edit $i" >>"$ws/README.md"
    echo "new $i" >"$ws/untracked-$i.txt"
    tip[$i]=$(git rev-parse "berth/t-$i")
  done
  attempt_digests t
}
pick=(pick t-1 --strategy squash --into release)
make_fork
keep=$(count_git_calls "${pick[@]}" --keep-others)
clear_fork t
make_fork
all=$(count_git_calls "${pick[@]}")
((all > keep + 8)) || { echo "pick: $all git calls, with --keep-others $keep" >&2; false; }
clear_fork t

for mode in ${FAULT_MODES:-alone}; do
  for ((k = keep + 1; ; k += CRASH_STRIDE)); do
    make_fork
    crash_at_git_call "$k" "$mode" "${pick[@]}" || break
    k=$FAULT_CALL
    at="call $k ($mode: $(cat "$FAULT_DIR/killed-at"))"
    landed=no
    if [[ $(git rev-parse release) != "$release" ]]; then
      landed=yes
      assert_eq "$(git cat-file blob release:landed-1.txt)" "attempt 1" "landed after a kill at $at"
    fi
    berth doctor --repair >/dev/null || { berth doctor --repair >&2; false; }
    # Settled: doctor finds nothing (a temp file of the dead berth aside), once for all three.
    out=$(berth --json doctor 2>/dev/null) || true
    flat=${out//[[:space:]]/}
    others=${flat//\"code\":\"stale_temp_file\"/}
    [[ $flat == *'"problems":['* && $others != *'"code":'* ]] || {
      echo "doctor finds problems after the repair of a kill at $at: $out" >&2
      false
    }
    for i in 1 2 3; do
      state=$(workspace_state "t-$i")
      case $state in
      whole)
        assert_eq "$(tree_digest "$(berth path "t-$i")")" "${digest[$i]}" "t-$i after a kill at $at"
        assert_eq "$(git rev-parse "berth/t-$i")" "${tip[$i]}" "berth/t-$i after a kill at $at"
        ;;
      gone)
        # The picked attempt goes only once landed; a sibling only after the pick landed.
        [[ $landed == yes ]] || { echo "t-$i gone, nothing landed, after a kill at $at" >&2; false; }
        if ((i > 1)); then
          ws=$(berth restore "t-$i")
          assert_eq "$(tree_digest "$ws")" "${digest[$i]}" "t-$i restored after a kill at $at"
          assert_eq "$(git rev-parse "berth/t-$i")" "${tip[$i]}"
        fi
        ;;
      *)
        echo "a kill at $at left t-$i $state after doctor --repair" >&2
        false
        ;;
      esac
    done
    clear_fork t
  done
done
# It ran to the end at last: landed, the siblings in the trash, restorable.
assert_eq "$(cat "$FAULT_DIR/status")" 0 "pick without a kill"
(($(fault_calls) > keep + 8)) ||
  { echo "only $(fault_calls) git calls seen: is the git wrapper used?" >&2; false; }
assert_eq "$(git cat-file blob release:landed-1.txt)" "attempt 1"
for i in 1 2 3; do
  assert_eq "$(workspace_state "t-$i")" gone
done
for i in 2 3; do
  assert_eq "$(tree_digest "$(berth restore "t-$i")")" "${digest[$i]}"
done
assert_eq "$(user_checkout)" "$user" "the user's checkout after the kills"

# `berth commit` and `berth sync` killed (SIGKILL: berth alone, then its whole process group)
# before each of their git calls: `berth doctor` tells the truth, and the next command
# settles the workspace to exactly before (HEAD, index, files) or exactly after. (A kill between
# moving HEAD and resetting the index used to leave the index showing the reverse of the work,
# unseen by doctor; a kill inside sync's merge left index.lock and a half-merged tree.)
# (berth alone here; its whole process group in t_commit_sync_group_killed_at_each_git_call,
# which runs this loop with FAULT_MODES=group: one test each keeps each under ctest's time limit.)
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/git_fault_helpers.sh"
make_repo app 10
ws=$(berth new x)
start=$(git -C "$ws" rev-parse HEAD)
work() {
  git -C "$ws" reset -q --hard "$start"
  git -C "$ws" clean -q -fd
  echo edit >>"$ws/README.md"
  echo new >"$ws/untracked.txt"
}
# The user's branch moves on (files added and changed), for sync to merge.
commit_file docs/guide.md "guide v2"
commit_file added/one.txt one
onto=$(git rev-parse HEAD)
work
digest=$(tree_digest "$ws")
index=$(git -C "$ws" ls-files -s | sha256sum)
user=$(user_checkout)

# before: HEAD, index and files as they were. after (commit): one commit on top holding the
# work, the index level with it. after (sync): that commit merged with the user's branch.
where() {
  local head
  head=$(git -C "$ws" rev-parse HEAD)
  if [[ $head == "$start" && $(git -C "$ws" ls-files -s | sha256sum) == "$index" &&
    $(tree_digest "$ws") == "$digest" ]]; then
    echo before
  elif [[ $1 == commit && $(git -C "$ws" rev-parse HEAD^) == "$start" &&
    -z $(git -C "$ws" status --porcelain) && $(tree_digest "$ws") == "$digest" ]]; then
    echo after
  elif [[ $1 == sync && $(git -C "$ws" rev-parse HEAD^2 2>/dev/null) == "$onto" &&
    $(git -C "$ws" rev-parse HEAD^1^) == "$start" && -z $(git -C "$ws" status --porcelain) ]]; then
    echo after
  else
    echo between
  fi
}

# Each killed at every call (berth alone, or its group: FAULT_MODES). Each round is kept
# cheap (the crash loops run hundreds of rounds): doctor is asked again only after a state it
# had to see, the user's checkout compared after each loop (a change would still be there).
for cmd in commit sync; do
  args=(commit x -m work)
  [[ $cmd == sync ]] && args=(sync x)
  for mode in ${FAULT_MODES:-alone}; do
    for ((k = 1; ; k += CRASH_STRIDE)); do
      crash_at_git_call "$k" "$mode" "${args[@]}" || break
      k=$FAULT_CALL
      state=$(where "$cmd")
      out=$(berth --json doctor) || true
      out=${out//[[:space:]]/}
      if [[ $state == between ]]; then
        [[ $out == *'"name":"x"'* ]] || {
          echo "$cmd killed at call $k ($(cat "$FAULT_DIR/killed-at")): doctor sees nothing: $out" >&2
          false
        }
      fi
      berth list >/dev/null # the next command settles it
      [[ $state == between ]] && state=$(where "$cmd")
      [[ $state != between ]] || {
        echo "$cmd killed at call $k ($mode: $(cat "$FAULT_DIR/killed-at")) is left half-way:" >&2
        git -C "$ws" status --short >&2
        false
      }
      [[ $out == *'"problems":[]'* ]] || berth doctor >/dev/null
      work # exactly before again, for the next kill
    done
    assert_eq "$(cat "$FAULT_DIR/status")" 0 "$cmd without a kill"
    assert_eq "$(where "$cmd")" after
    (($(fault_calls) > 5)) ||
      { echo "only $(fault_calls) git calls seen: is the git wrapper used?" >&2; false; }
    assert_eq "$(user_checkout)" "$user" "the user's checkout after $cmd killed ($mode)"
    work
  done
done

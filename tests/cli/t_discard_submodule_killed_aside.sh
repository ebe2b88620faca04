# `berth discard` killed (-9) after it moved a workspace with a submodule aside into .trash/ and
# dropped its record, before the deletion: `doctor --repair` verifies the snapshot against the
# tree (the submodule's links lead to its module from the deeper place, also when they are still
# the relative ones `git submodule` wrote) and deletes it; restore brings the work back.
. "$(dirname "$0")/common.sh"
make_repo_with_submodule
ws=$(berth new k)
echo secret >"$ws/untracked.txt"
echo sub >"$ws/third_party/x/sub.txt"
gitfile=$(cat "$ws/third_party/x/.git")
trash=$(dirname "$ws")/.trash

# discard waits for the deletion lock (held here) once the tree is aside and the record gone.
pool_dir=$(git rev-parse --git-common-dir)/berth/pool
mkdir -p "$pool_dir"
flock "$pool_dir/reap.lock" -c "touch $T/held; i=0; while [ ! -e $T/let-go ] && [ -d $T ] &&
  [ \$i -lt 1200 ]; do sleep 0.05; i=\$((i + 1)); done" &
holder=$!
wait_for_file "$T/held"
records=$(git rev-parse --path-format=absolute --git-common-dir)/berth/workspaces
"$BERTH_BIN" discard k >/dev/null 2>&1 &
pid=$!
for ((i = 0; i < 400; i++)); do
  # (The record gone: `berth path k` refuses the workspace earlier, while it is being discarded.)
  [[ -n $(ls -A "$trash" 2>/dev/null) && ! -e $records/k.json ]] && break
  sleep 0.05
done
kill -9 $pid
wait $pid 2>/dev/null || true
touch "$T/let-go"
wait "$holder"
aside=$(ls -d "$trash"/*)
[[ -d $aside/third_party/x ]]
# As a crash before the links were fixed leaves them: relative, one level too shallow.
printf '%s\n' "$gitfile" >"$aside/third_party/x/.git"

out=$(berth doctor --repair 2>&1) || { echo "$out" >&2; false; }
assert_not_contains "$out" "problem:"
assert_contains "$out" "snapshot verified"
[[ ! -e $aside ]]
assert_not_contains "$(git worktree list)" .trash
berth restore k >/dev/null 2>&1
ws=$(berth path k)
assert_eq "$(cat "$ws/untracked.txt")" secret
assert_eq "$(cat "$ws/third_party/x/sub.txt")" sub

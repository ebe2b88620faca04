# 20 `berth new` started at once on one repository all succeed, and every workspace is clean.
# (Plain `git worktree add` fails ~10% of the time at this level and leaves orphan branches.)
. "$(dirname "$0")/common.sh"
make_repo app 300
head=$(git rev-parse HEAD)

pids=()
for i in $(seq 1 20); do
  berth new "task-$i" >"$TMPDIR/out.$i" 2>"$TMPDIR/err.$i" &
  pids+=($!)
done
failures=0
for i in $(seq 1 20); do
  if ! wait "${pids[$((i - 1))]}"; then
    failures=$((failures + 1))
    echo "berth new task-$i failed:" >&2
    cat "$TMPDIR/err.$i" >&2
  fi
done
assert_eq "$failures" 0 "failed creations"

for i in $(seq 1 20); do
  ws=$(cat "$TMPDIR/out.$i")
  assert_eq "$ws" "$(berth path "task-$i")"
  assert_eq "$(git -C "$ws" status --porcelain --untracked-files=all)" "" "status of task-$i"
  assert_eq "$(git -C "$ws" rev-parse HEAD)" "$head"
  assert_eq "$(git -C "$ws" symbolic-ref HEAD)" "refs/heads/berth/task-$i"
done
assert_eq "$(git worktree list --porcelain | grep -c '^worktree ')" 21 "worktrees"
git worktree list --porcelain | { ! grep '^prunable'; }
assert_eq "$(git for-each-ref refs/heads/berth/ | wc -l)" 20 "branches"
assert_eq "$(berth --json list | jq '[.[] | select(.state == "ready" and .dirty == false)] | length')" 20
assert_eq "$(git status --porcelain --untracked-files=all)" ""
git fsck --no-progress --connectivity-only 2>&1 | { ! grep -i error; }

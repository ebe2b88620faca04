# commit and sync hold the workspace (a lease, like run): while `berth run` holds it, commit and
# sync refuse busy (exit 5) and change nothing — except when the run's own command calls them; two
# commits at once never fail with git's text (one commits, the other is busy or finds nothing); a
# commit, a sync and a discard racing never leave a branch that blocks the name.
# (Before: commit and sync went ahead under a run, concurrent commits failed "cannot lock ref
# 'HEAD'", and a commit racing a discard left berth/NAME behind with no workspace.)
. "$(dirname "$0")/common.sh"
# The held run ends with the test, whatever happens; the test's own status is kept.
trap '_status=$?; touch "$T/stop"; cleanup "$_status"' EXIT
make_repo app
ws=$(berth new w)
echo work >"$ws/work.txt"

# Under a run: refused, nothing changed.
berth run w -- sh -c "touch '$T/running'; while [ ! -e '$T/stop' ]; do sleep 0.05; done" &
run_pid=$!
wait_for_file "$T/running"
head=$(git -C "$ws" rev-parse HEAD)
commit_file main.txt main 'user commit'
out=$(expect_error busy 5 berth --json commit w -m during)
assert_contains "$(jq -r .error.message <<<"$out")" "busy"
expect_error busy 5 berth --json sync w >/dev/null
assert_eq "$(git -C "$ws" rev-parse HEAD)" "$head" "HEAD untouched"
assert_eq "$(git -C "$ws" status --porcelain)" "?? work.txt" "the work untouched"
touch "$T/stop"
wait "$run_pid"
assert_eq "$(berth --json status w | jq -r .state)" ready

# The run's own command may commit its workspace (it holds the lease).
berth run w -- "$BERTH_BIN" commit w -m "from inside" >/dev/null
assert_eq "$(git -C "$ws" log -1 --format=%s)" "from inside"
assert_eq "$(berth --json status w | jq -r .state)" ready

# Four commits at once: one commits, the others are busy or find nothing; never git's text.
echo more >"$ws/more.txt"
for i in 1 2 3 4; do
  (
    status=0
    "$BERTH_BIN" --json commit w -m "c$i" >"$T/c$i.out" 2>&1 || status=$?
    echo "$status" >"$T/c$i.status"
  ) &
done
wait
made=0
for i in 1 2 3 4; do
  status=$(cat "$T/c$i.status")
  [[ $status == 0 || $status == 5 ]] || {
    cat "$T/c$i.out" >&2
    false
  }
  # (One that found nothing to commit says "commit": null.)
  [[ $status == 0 && $(jq -r '.commit // ""' "$T/c$i.out") != "" ]] && made=$((made + 1))
done
assert_eq "$made" 1 "commits made"
assert_eq "$(berth --json doctor | jq -r '.problems | length')" 0

# commit, sync and discard racing: the work ends in the trash or the workspace, the name is free
# or still a workspace, never a lone branch.
for round in 1 2 3; do
  n=race$round
  p=$(berth new "$n")
  echo a >"$p/a.txt"
  berth commit "$n" -m a >/dev/null
  echo b >"$p/b.txt"
  commit_file "up$round.txt" up "upstream $round"
  "$BERTH_BIN" sync "$n" >/dev/null 2>&1 &
  "$BERTH_BIN" commit "$n" -m b >/dev/null 2>&1 &
  "$BERTH_BIN" discard "$n" >/dev/null 2>&1 &
  wait || true
  if berth status "$n" >/dev/null 2>&1; then
    berth discard "$n" >/dev/null
  fi
  not 1 git rev-parse -q --verify "refs/heads/berth/$n" >/dev/null
  assert_eq "$(berth --json doctor | jq -r '.problems | length')" 0
  berth new "$n" >/dev/null # the name is free at once
done

#!/usr/bin/env bash
# pick holds what it checked: a sibling whose command runs is refused (busy, exit 5, nothing
# changed), and a `berth run` starting in a sibling while pick works is refused busy, never
# stopped half-way and discarded. Raced several times: whoever wins, nothing is lost.
. "$(dirname "$0")/common.sh"
make_repo app
commit_attempt='echo "$BERTH_ATTEMPT" >"answer-$BERTH_FORK.txt" && git add . && git commit -qm "attempt $BERTH_ATTEMPT"'

# A sibling already running: refused, nothing changed (the other sibling's lease given back).
berth fork busy -n 3 -- sh -c "$commit_attempt" >/dev/null
# (It waits for $T/go, 10 s at most: even a failed test leaves no process behind.)
"$BERTH_BIN" run busy-3 -- sh -c 'echo started >started; for _ in $(seq 200); do [ -e "$1" ] && break; sleep 0.05; done' sh "$T/go" >/dev/null 2>&1 &
runner=$!
wait_for_file "$(berth path busy-3)/started"
before=$(fingerprint)
expect_error busy 5 berth --json pick busy-1 >/dev/null
assert_contains "$(last_stderr)" "--keep-others"
assert_unchanged "$before"
# --keep-others leaves the siblings alone, so a running one does not stop it.
berth --json pick busy-1 --keep-others --dry-run >/dev/null
touch "$T/go"
wait "$runner"
berth pick busy-1 >/dev/null

# The race: a run starts in sibling 2 as pick of attempt 1 starts.
# (pick starts first; the run after a delay that varies, to land in each of pick's steps)
delays=(0 0.04 0.08 0.15)
for i in 1 2 3 4; do
  berth fork "r$i" -n 2 -- sh -c "$commit_attempt" >/dev/null
  sibling=$(berth path "r$i-2")
  echo 0 >"$T/pick.status"
  { "$BERTH_BIN" --json pick "r$i-1" --strategy squash >"$T/pick.json" 2>/dev/null || echo $? >"$T/pick.status"; } &
  picker=$!
  sleep "${delays[i - 1]}"
  run_status=0
  berth run "r$i-2" -- sh -c 'echo started >started; sleep 0.2; echo done >done' >/dev/null 2>&1 || run_status=$?
  wait "$picker"
  pick_status=$(cat "$T/pick.status")
  echo "round $i: pick $pick_status, run $run_status" >&2
  case "$pick_status:$run_status" in
  0:5) ;; # pick won: the run was refused before it started anything
  0:4) ;; # pick had ended before the run asked: the sibling was in the trash already, none ran
  0:0)    # the run ended before pick took its sibling: all of it is in the trash
    ref=$(jq -r '.discarded[0].snapshot.ref' "$T/pick.json")
    git cat-file -e "$ref:done" || { echo "round $i: the run's work is not in the trash" >&2; false; } ;;
  5:0)    # the run won: pick changed nothing, the run finished
    test -e "$sibling/done"
    assert_eq "$(berth --json list | jq '[.[] | select(.fork == "r'$i'")] | length')" 2 "round $i"
    berth pick "r$i-1" --strategy squash >/dev/null ;;
  *)
    echo "round $i: pick exited $pick_status, the run exited $run_status" >&2
    false ;;
  esac
  assert_eq "$(git show "HEAD:answer-r$i.txt")" 1 "round $i"
  # Whatever was started was finished: no snapshot of a run stopped half-way.
  for ref in $(git for-each-ref --format='%(refname)' "refs/berth/trash/r$i-2"); do
    if git cat-file -e "$ref:started" 2>/dev/null; then
      git cat-file -e "$ref:done" || { echo "round $i: the run was stopped half-way" >&2; false; }
    fi
  done
done

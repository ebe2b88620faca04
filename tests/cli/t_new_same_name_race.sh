# Two processes creating the same name at once: exactly one wins, the other gets name_taken, and
# the loser leaves the winner's workspace whole.
. "$(dirname "$0")/common.sh"
make_repo app 50

for round in 1 2 3 4 5; do
  name=race-$round
  berth --json new "$name" >"$TMPDIR/a.out" 2>/dev/null &
  a=$!
  berth --json new "$name" >"$TMPDIR/b.out" 2>/dev/null &
  b=$!
  sa=0 sb=0
  wait $a || sa=$?
  wait $b || sb=$?
  if [[ $sa == 0 ]]; then win=a lose=b lost_status=$sb; else win=b lose=a lost_status=$sa; fi
  assert_eq "$(sort <<<"$sa"$'\n'"$sb" | tr '\n' ' ')" "0 1 " "exit statuses of round $round"
  assert_eq "$lost_status" 1
  assert_eq "$(jq -r .error.code "$TMPDIR/$lose.out")" name_taken

  ws=$(jq -r .path "$TMPDIR/$win.out")
  assert_eq "$(berth path "$name")" "$ws"
  assert_eq "$(git -C "$ws" status --porcelain --untracked-files=all)" ""
  assert_eq "$(git -C "$ws" symbolic-ref HEAD)" "refs/heads/berth/$name"
  assert_eq "$(git worktree list --porcelain | grep -cx "worktree $ws")" 1
done
assert_eq "$(berth --json list | jq length)" 5
assert_eq "$(git worktree list --porcelain | grep -c '^worktree ')" 6

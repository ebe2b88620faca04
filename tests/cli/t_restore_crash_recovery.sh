# A `berth restore` killed with SIGKILL mid-checkout leaves no trace once the next berth command
# runs: no worktree, directory or record, and no branch either, although a restored branch starts
# at the workspace's own commits, not at its base. The same restore then works.
. "$(dirname "$0")/common.sh"
make_repo app 30
hold_checkouts '*.slow'
echo content >big.slow
git add -A && git commit -q -m "slow file"
touch "$T/release" # (no hold while the workspace is made)
ws=$(berth new doomed)
(cd "$ws" && commit_file work.txt work)
berth discard doomed >/dev/null 2>&1
rm "$T/release" "$T/checkout-started"
before=$(fingerprint)

# The binary itself, not the `berth` function: the kill must hit berth, not a subshell.
"$BERTH_BIN" restore doomed >/dev/null 2>&1 &
pid=$!
wait_for_file "$T/checkout-started"
kill -9 "$pid"
wait "$pid" || true
touch "$T/release"
for _ in $(seq 1 100); do
  [[ ! -e $(git rev-parse --git-common-dir)/worktrees/doomed/index.lock ]] && break
  sleep 0.05
done
sleep 0.2

assert_eq "$(berth --json list | jq length)" 0 "workspaces"
assert_unchanged "$before"
not 1 git rev-parse --verify -q refs/heads/berth/doomed >/dev/null
ws=$(berth restore doomed)
assert_eq "$(cat "$ws/work.txt") $(cat "$ws/big.slow")" "work content"

# A `berth new` killed with SIGKILL mid-checkout leaves no trace once the next berth command runs:
# no worktree, branch, directory or record.
. "$(dirname "$0")/common.sh"
make_repo app 30
berth new keep >/dev/null
hold_checkouts '*.slow'
echo content >big.slow
git add -A && git commit -q -m "slow file"
before=$(fingerprint)

# The binary itself, not the `berth` function: the kill must hit berth, not a subshell.
"$BERTH_BIN" new doomed >/dev/null 2>&1 &
pid=$!
wait_for_file "$T/checkout-started"
assert_eq "$(berth --json list | jq -r '.[] | select(.name == "doomed") | .state')" creating
kill -9 "$pid"
wait "$pid" || true
# The orphaned git checkout finishes (a real crash does not stop it either); wait until it is done.
touch "$T/release"
for _ in $(seq 1 100); do
  [[ -f .git/worktrees/doomed/index && ! -e .git/worktrees/doomed/index.lock ]] && break
  sleep 0.05
done
sleep 0.2

assert_eq "$(berth --json list | jq -r '.[].name')" keep
assert_unchanged "$before"
not 1 git rev-parse --verify -q refs/heads/berth/doomed >/dev/null
[[ ! -e $(dirname "$(berth path keep)")/doomed && ! -e .git/worktrees/doomed ]]

ws=$(berth new doomed)
assert_eq "$(cat "$ws/big.slow")" content

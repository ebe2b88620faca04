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
# The orphaned git checkout stops (its parent-death signal) or finishes; wait until it is done:
# no git left working in the repository, nor the smudge filter it started, released now. (Waiting
# for the index alone spent its whole 5 s: the checkout never writes it.)
touch "$T/release"
checkout_at_work() {
  local pid
  pgrep -f -- "$T/hold-smudge" >/dev/null && return 0
  for pid in $(pgrep -x git || true); do
    [[ $(readlink "/proc/$pid/cwd" 2>/dev/null) == "$T"/* ]] && return 0
  done
  return 1
}
for _ in $(seq 1 100); do
  [[ -f .git/worktrees/doomed/index && ! -e .git/worktrees/doomed/index.lock ]] && break
  checkout_at_work || break
  sleep 0.05
done
sleep 0.2

assert_eq "$(berth --json list | jq -r '.[].name')" keep
assert_unchanged "$before"
not 1 git rev-parse --verify -q refs/heads/berth/doomed >/dev/null
[[ ! -e $(dirname "$(berth path keep)")/doomed && ! -e .git/worktrees/doomed ]]

ws=$(berth new doomed)
assert_eq "$(cat "$ws/big.slow")" content

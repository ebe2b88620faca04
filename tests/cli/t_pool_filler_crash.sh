# A filler killed (kill -9) half-way through making a slot leaves a `filling` slot; the next fill
# removes it and fills the pool; no workspace ever appears from it.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app 100
hold_checkouts 'held.txt'
commit_file held.txt held
git add .gitattributes && git commit -qm attributes
export BERTH_POOL_SIZE=1

"$BERTH_BIN" pool fill 1 >/dev/null 2>&1 &
filler=$!
wait_for_file "$T/checkout-started"
json=$(berth --json pool status)
assert_eq "$(jq -r '[.slots[].state] | join(",")' <<<"$json")" filling
slot=$(jq -r '.slots[0].path' <<<"$json")
children=$(pgrep -P "$filler" || true)
kill -9 "$filler"
wait "$filler" 2>/dev/null || true
# Let the orphaned checkout finish (it is git's, not berth's) before looking again.
touch "$T/release"
for pid in $children; do
  while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
done
assert_eq "$(berth --json pool status | jq -r '[.slots[].state] | join(",")')" filling
assert_eq "$(berth --json list | jq length)" 0

json=$(berth --json pool fill)
assert_eq "$(jq -r '[.slots[].state] | join(",")' <<<"$json")" ready
[[ $(jq -r '.slots[0].path' <<<"$json") != "$slot" ]]
[[ ! -e $slot ]]
git worktree list --porcelain | { ! grep -q "^worktree $slot\$"; }
assert_eq "$(git worktree list --porcelain | grep -c '^worktree ')" 2
pool_quiesce

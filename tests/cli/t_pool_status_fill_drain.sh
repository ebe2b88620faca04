# `berth pool status | fill N | drain`, text and --json: slots are detached, locked worktrees at
# the main HEAD under <root>/.pool, never listed as workspaces; drain removes them all.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app 50
head=$(git rev-parse HEAD)
export BERTH_POOL_SIZE=2

json=$(berth --json pool status)
assert_eq "$(jq -r '.size, .ready, (.slots | length), .trash' <<<"$json" | paste -sd,)" "2,0,0,0"
root=$(dirname "$(jq -r .dir <<<"$json")")
assert_eq "$(basename "$(jq -r .dir <<<"$json")")" .pool
assert_contains "$(berth pool status)" "pool: 0 ready of 2 (pool.size)"

# fill N: exactly N ready slots when it returns, whatever pool.size says.
json=$(berth --json pool fill 3)
assert_eq "$(jq -r .ready <<<"$json")" 3
assert_eq "$(jq -r '[.slots[] | select(.state == "ready" and .commit == "'"$head"'")] | length' <<<"$json")" 3
for slot in $(jq -r '.slots[].path' <<<"$json"); do
  assert_eq "$(dirname "$slot")" "$root/.pool"
  assert_eq "$(git -C "$slot" rev-parse HEAD)" "$head"
  not 1 git -C "$slot" symbolic-ref -q HEAD >/dev/null # detached
  assert_eq "$(lock_reason "$slot")" "$SLOT_REASON"
  assert_eq "$(git -C "$slot" status --porcelain --untracked-files=all --ignored)" ""
  assert_index_settled "$slot"
done
assert_contains "$(berth pool status)" "pool: 3 ready of 2 (pool.size)"
# Filling to fewer than are ready makes nothing and removes nothing.
assert_eq "$(berth --json pool fill 1 | jq -r .ready)" 3
# Slots are not workspaces.
assert_eq "$(berth --json list | jq length)" 0
assert_eq "$(git status --porcelain --untracked-files=all)" ""

# drain: no slot left, on disk or in git.
json=$(berth --json pool drain)
assert_eq "$(jq -r '.ready, (.slots | length)' <<<"$json" | paste -sd,)" "0,0"
assert_eq "$(git worktree list --porcelain | grep -c '^worktree ')" 1 "worktrees after drain"
assert_eq "$(find "$root/.pool" -mindepth 1 | wc -l)" 0 "slot folders after drain"
assert_eq "$(find "$(git rev-parse --git-common-dir)/berth/pool" -name '*.json' | wc -l)" 0 "slot records"
not 2 berth pool bogus >/dev/null
pool_quiesce

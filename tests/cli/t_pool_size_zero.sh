# pool.size = 0 never makes a slot: no filler starts, `new` checks out cold, and discard deletes
# the tree before it returns.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app 50
printf '[pool]\nsize = 0\n' >.berth.toml
unset BERTH_POOL_SIZE
echo .berth.toml >>.git/info/exclude

ws=$(berth new x 2>/dev/null)
assert_eq "$(git -C "$ws" rev-parse --absolute-git-dir)" "$(git rev-parse --absolute-git-dir)/worktrees/x"
assert_eq "$(pool_fillers)" "" "fillers after new"
json=$(berth --json pool status)
assert_eq "$(jq -r '.size, .ready, (.slots | length)' <<<"$json" | paste -sd,)" "0,0,0"
root=$(dirname "$(jq -r .dir <<<"$json")")
[[ ! -e $root/.pool ]] || assert_eq "$(find "$root/.pool" -mindepth 1 | wc -l)" 0 "slots"

echo work >"$ws/new.txt"
berth discard x >/dev/null
assert_eq "$(pool_fillers)" "" "fillers after discard"
[[ ! -e $ws ]]
[[ ! -e $root/.trash ]] || assert_eq "$(find "$root/.trash" -mindepth 1 | wc -l)" 0 "trash left"
assert_eq "$(git worktree list --porcelain | grep -c '^worktree ')" 1
assert_eq "$(berth --json pool status | jq -r '.trash')" 0

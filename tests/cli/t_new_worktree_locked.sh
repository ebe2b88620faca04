# A workspace stays `git worktree lock`ed with a reason naming berth, so prune and gc never reap
# it, even while its directory is briefly gone (an unmounted disk, a moved folder).
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new x)
(cd "$ws" && commit_file work.txt "agent work")
tip=$(git rev-parse berth/x)

entry=$(git worktree list --porcelain | awk -v ws="$ws" '$0 == "worktree " ws {on=1} on && /^$/ {exit} on')
assert_contains "$entry" "locked berth"
assert_eq "$(berth --json status x | jq -r .lock_reason | cut -c1-6)" "berth:"

mv "$ws" "$T/away"
git worktree prune
git -c gc.worktreePruneExpire=now gc -q --prune=now
mv "$T/away" "$ws"
git worktree list --porcelain | grep -cx "worktree $ws" >/dev/null
assert_eq "$(git rev-parse berth/x)" "$tip"
assert_eq "$(git -C "$ws" status --porcelain)" ""
assert_eq "$(berth --json status x | jq -r .state)" ready

berth discard x >/dev/null
git worktree list --porcelain | { ! grep -c "$ws" >/dev/null; }
[[ ! -e .git/worktrees/x ]]

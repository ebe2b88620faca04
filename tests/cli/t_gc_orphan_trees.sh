# `berth gc` and the trees left behind: a discarded tree left aside by a crash (discard killed
# between its move into .trash and the rewrite of its admin dir) goes, once its snapshot is
# checked, and stays restorable; git's admin dir of a worktree under berth's root whose directory
# is gone goes, the user's own worktree whose directory is gone is never touched (no `git worktree
# prune`). The dry run lists exactly what the real run removes and skips, also with a warm pool,
# where the trees the real run discards wait aside for the background deleter (not orphans).
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app

other=$(berth new other)
root=$(dirname "$other")
# The user's own worktree, deleted by hand: theirs to prune.
git worktree add -q "$T/mine" -b mine
rm -rf "$T/mine"
# A worktree under berth's root that no record claims (a crash while making one), deleted.
git worktree add -q "$root/stray" -b stray
rm -rf "$root/stray"
# A discard killed between the move aside and the rewrite of the tree's admin dir; the next
# command settles it: the tree waits in .trash for a deleter that never comes (no pool).
ws=$(berth new x)
echo "the work" >"$ws/work.txt"
BERTH_TEST_FAIL_AT=discard-moved:kill not 137 berth discard x >/dev/null
berth list >/dev/null
aside=$(find "$root/.trash" -mindepth 1 -maxdepth 1)
[[ -n $aside ]]

items() { jq -c '[.[0][] | del(.snapshot)] | sort_by(.kind, .path)' <<<"[$(jq -c ".$1" <<<"$2")]"; }
before=$(fingerprint)
dry=$(berth --json gc --dry-run)
assert_unchanged "$before"
assert_eq "$(jq -r '[.removed[] | "\(.kind) \(.path)"] | sort | join(",")' <<<"$dry" |
  sed 's/,shadow [^,]*//')" "aside $aside,worktree $root/stray" "the dry run"
real=$(berth --json gc)
assert_eq "$(items removed "$real")" "$(items removed "$dry")" "removed: real vs dry run"
assert_eq "$(items skipped "$real")" "$(items skipped "$dry")" "skipped: real vs dry run"
assert_eq "$(ls -A "$root/.trash")" "" "left in .trash"
worktrees=$(git worktree list --porcelain | grep '^worktree ')
assert_contains "$worktrees" "worktree $T/mine"
assert_not_contains "$worktrees" "$root/stray"
assert_eq "$(cat "$(berth restore x)/work.txt")" "the work"
berth discard x >/dev/null

# A warm pool: the trees of the workspaces the real run discards go aside for the background
# deleter; they are not this run's orphans.
export BERTH_POOL_SIZE=1
for n in a b c; do berth new "$n" >/dev/null; done
wait_for_fillers
dry=$(berth --json gc --dry-run --older-than 0s)
real=$(berth --json gc --older-than 0s)
assert_eq "$(items removed "$real")" "$(items removed "$dry")" "removed: real vs dry run (pool)"
assert_eq "$(items skipped "$real")" "$(items skipped "$dry")" "skipped: real vs dry run (pool)"
assert_eq "$(jq -r '[.removed[] | .name] | sort | join(" ")' <<<"$real")" "a b c other"
pool_quiesce

# `berth gc` and the trees left behind: a discarded tree left aside by a crash (discard killed
# between its move into .trash and the rewrite of its admin dir) goes, once its snapshot is
# checked, and stays restorable; git's admin dir of a worktree under berth's root whose directory
# is gone goes, the user's own worktree whose directory is gone is never touched (no `git worktree
# prune`); a record whose worktree git removed goes (its commits to the trash), one whose
# directory is there without git's admin dir stays, said. The dry run lists exactly what the real run removes and skips, also with a warm pool,
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

# A record whose directory and worktree git removed (`git worktree remove -ff`): an orphan, its
# commits to the trash. One whose directory is there but git's admin dir is not: never removed
# (its files may be work), said.
removed=$(berth new removed)
(cd "$removed" && commit_file r.txt "committed")
git worktree unlock "$removed"
git worktree remove -f -f "$removed"
unlinked=$(berth new unlinked)
echo "work" >"$unlinked/w.txt"
rm -rf "$(git rev-parse --git-common-dir)/worktrees/unlinked"

items() { jq -c '[.[0][] | del(.snapshot)] | sort_by(.kind, .path)' <<<"[$(jq -c ".$1" <<<"$2")]"; }
before=$(fingerprint)
dry=$(berth --json gc --dry-run)
assert_unchanged "$before"
assert_eq "$(jq -r '[.removed[] | "\(.kind) \(.path)"] | sort | join(",")' <<<"$dry" |
  sed 's/,shadow [^,]*//')" "aside $aside,workspace $removed,worktree $root/stray" "the dry run"
assert_eq "$(jq -r '.removed[] | select(.name == "removed") | "\(.category): \(.reason)"' <<<"$dry")" \
  "orphan: its directory and git's worktree are gone (its commits are kept in the trash)"
assert_contains "$(jq -r '.skipped[] | select(.name == "unlinked") | "\(.category): \(.reason)"' \
  <<<"$dry")" "orphan: git no longer knows this worktree (its admin dir is gone)"
real=$(berth --json gc)
assert_eq "$(items removed "$real")" "$(items removed "$dry")" "removed: real vs dry run"
assert_eq "$(items skipped "$real")" "$(items skipped "$dry")" "skipped: real vs dry run"
assert_eq "$(ls -A "$root/.trash")" "" "left in .trash"
worktrees=$(git worktree list --porcelain | grep '^worktree ')
assert_contains "$worktrees" "worktree $T/mine"
assert_not_contains "$worktrees" "$root/stray"
assert_eq "$(cat "$(berth restore x)/work.txt")" "the work"
berth discard x >/dev/null
assert_eq "$(git show "$(git for-each-ref --format='%(objectname)' refs/berth/trash/removed/):r.txt")" \
  committed
assert_eq "$(cat "$unlinked/w.txt")" work
rm -rf "$unlinked" # (now an orphan record: gone with the pool's run below)

# A warm pool: the trees of the workspaces the real run discards go aside for the background
# deleter; they are not this run's orphans.
export BERTH_POOL_SIZE=1
for n in a b c; do berth new "$n" >/dev/null; done
wait_for_fillers
dry=$(berth --json gc --dry-run --older-than 0s)
real=$(berth --json gc --older-than 0s)
assert_eq "$(items removed "$real")" "$(items removed "$dry")" "removed: real vs dry run (pool)"
assert_eq "$(items skipped "$real")" "$(items skipped "$dry")" "skipped: real vs dry run (pool)"
assert_eq "$(jq -r '[.removed[] | select(.kind == "workspace") | .name] | sort | join(" ")' <<<"$real")" \
  "a b c other unlinked"
pool_quiesce

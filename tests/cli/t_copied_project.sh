# A copy of the repository (`cp -a`, the original kept) carries berth's records of the original's
# workspaces and pool slots. The copy must never take them: its `new` makes its own workspace (not
# a pool slot of the original), `doctor` names the copied records, and `doctor --repair` forgets
# them there without touching the original's workspace, its links or its pool.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo proj
export BERTH_POOL_SIZE=2
berth pool fill >/dev/null
a=$(berth new a)
echo work >"$a/w.txt"
git -C "$a" add w.txt
git -C "$a" commit -qm "a's work"
wait_for_fillers
slots_before=$(git worktree list --porcelain | grep -c '/\.pool/slot-')
[[ $slots_before -ge 1 ]]
a_gitfile=$(cat "$a/.git")
before=$(fingerprint "$a")

cd "$T"
cp -a proj copy
cd copy
# The copy's `new` makes a workspace of the copy: not the original's pool slot.
b=$(berth new b)
assert_eq "$(git -C "$b" rev-parse --path-format=absolute --git-common-dir)" "$T/copy/.git"
wait_for_fillers
cd "$T/proj"
assert_eq "$(git worktree list --porcelain | grep -c '/\.pool/slot-')" "$slots_before"
assert_eq "$(berth doctor)" "all good"

# doctor in the copy names the copied record; --repair forgets it there only.
cd "$T/copy"
out=$(not 1 berth doctor)
assert_contains "$out" "workspace 'a' belongs to the repository at $T/proj"
json=$(not 1 berth --json doctor)
assert_eq "$(jq -r '[.problems[] | select(.code == "copied_repository") | .name] | join(",")' \
  <<<"$json")" "a"
# The copy's branch berth/a stays (berth never deletes commits it does not keep): doctor says so.
out=$(not 1 berth doctor --repair)
assert_contains "$out" "forgot this copy's record of $a"
assert_contains "$out" "branch berth/a belongs to no workspace"
git branch -D berth/a >/dev/null
assert_eq "$(berth doctor)" "all good"
assert_eq "$(berth --json list | jq -r '[.[].name] | sort | join(",")')" "b"
[[ ! -e .git/berth/workspaces/a.json ]]

# The original's workspace is untouched: its files, its link to its repository, its commit.
assert_eq "$(cat "$a/.git")" "$a_gitfile"
assert_unchanged "$before" "$a"
cd "$T/proj"
assert_eq "$(berth --json status a | jq -r '.state, .ahead' | tr '\n' ' ')" "ready 1 "
assert_eq "$(git -C "$a" log -1 --format=%s)" "a's work"
assert_eq "$(berth doctor)" "all good"
berth discard a >/dev/null
pool_quiesce
cd "$T/copy"
berth discard b >/dev/null
pool_quiesce

# A git killed while deleting a ref (a discard killed with it) leaves packed-refs.lock in the shared
# repository: every later ref deletion fails, so the orphan branch berth/NAME it also left can
# not go and `new`/`restore NAME` fail with branch_exists. `berth doctor` names the lock
# (`stale_lock`, path = the lock); `--repair` removes it (never one a live process holds open),
# then deletes the branch, and `restore NAME` works again.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new x)
echo b >"$ws/b"
berth commit x -m w >/dev/null
berth discard x >/dev/null
snap=$(git for-each-ref --format='%(objectname)' refs/berth/trash/x/ | head -1)
git branch berth/x "$snap^1"
lock=$(git rev-parse --path-format=absolute --git-common-dir)/packed-refs.lock
: >"$lock"
touch -d '1 minute ago' "$lock"

# Held open by a live process (a git at work): left alone, and the failure names the lock.
exec 7<"$lock"
out=$(not 1 berth --json doctor --repair)
assert_eq "$(jq -r '[.problems[] | select(.code == "stale_lock")][0].path' <<<"$out")" "$lock"
assert_contains "$(jq -r '[.problems[] | select(.code == "stale_lock")][0].message' <<<"$out")" \
  "$lock"
[[ -e $lock ]]
git rev-parse -q --verify refs/heads/berth/x >/dev/null
exec 7<&-

# Nobody holds it: named by doctor, removed by --repair, and the branch goes with it.
out=$(not 1 berth --json doctor)
assert_eq "$(jq -r '[.problems[] | select(.code == "stale_lock")][0].path' <<<"$out")" "$lock"
berth doctor --repair >/dev/null
[[ ! -e $lock ]]
not 1 git rev-parse -q --verify refs/heads/berth/x >/dev/null
berth doctor >/dev/null
ws=$(berth restore x)
assert_eq "$(cat "$ws/b")" b

# A git killed in a workspace leaves its index.lock: berth's error names that file (git's own last
# line, "remove the file manually", named none); `berth doctor` reports it (`stale_lock`) and
# `--repair` deletes it — but never one a live git process holds open.
. "$(dirname "$0")/common.sh"
make_repo app 5
ws=$(berth new x)
admin=$(git -C "$ws" rev-parse --absolute-git-dir)
echo work >"$ws/work.txt"
: >"$admin/index.lock"
touch -d '1 minute ago' "$admin/index.lock"
out=$(expect_error index_lock 1 berth --json commit x -m work)
assert_contains "$(jq -r .error.message <<<"$out")" "$admin/index.lock"
assert_eq "$(jq -r '.error.paths[0]' <<<"$out")" "$admin/index.lock"

# Held open by a live process (a git at work): reported by nobody, never deleted.
exec 7<"$admin/index.lock"
berth doctor >/dev/null
berth doctor --repair >/dev/null
[[ -e $admin/index.lock ]]
exec 7<&-

# Nobody holds it: a problem, repaired.
out=$(not 1 berth --json doctor)
assert_eq "$(jq -r '[.problems[] | select(.code == "stale_lock")][0].path' <<<"$out")" "$admin/index.lock"
berth doctor --repair >/dev/null
[[ ! -e $admin/index.lock ]]
berth doctor >/dev/null
berth commit x -m work >/dev/null
assert_eq "$(git -C "$ws" log -1 --format=%s)" work

# A worktree the user locked themselves is theirs: discard refuses (locked, exit 5), even with
# --force, and leaves the lock in place.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new x)
git worktree unlock "$ws"
git worktree lock --reason "on a USB disk, keep" "$ws"
before=$(fingerprint)

out=$(expect_error locked 5 berth --json discard x)
assert_contains "$(jq -r .error.message <<<"$out")" "on a USB disk, keep"
expect_error locked 5 berth --json discard x --force >/dev/null
expect_error locked 5 berth --json discard x --force --no-trash >/dev/null
assert_unchanged "$before"
git worktree list --porcelain | grep -cx "locked on a USB disk, keep" >/dev/null

# A lock without a reason is the user's too.
git worktree unlock "$ws"
git worktree lock "$ws"
before=$(fingerprint)
expect_error locked 5 berth --json discard x >/dev/null
assert_unchanged "$before"

git worktree unlock "$ws"
berth discard x >/dev/null
[[ ! -e $ws ]]

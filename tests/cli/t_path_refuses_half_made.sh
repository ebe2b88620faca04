# `berth path NAME` never hands out a half-made workspace: while `new` still checks it out it is
# `busy` (exit 5); after the creation was killed, path undoes the dead creation first and says
# not_found (exit 4), as any next command would.
. "$(dirname "$0")/common.sh"
make_repo app 5
commit_file slow.txt slow
hold_checkouts slow.txt
git add .gitattributes && git commit -q -m hold
berth new x >/dev/null 2>&1 &
pid=$!
wait_for_file "$T/checkout-started"
out=$(expect_error busy 5 berth --json path x)
assert_contains "$(jq -r .error.message <<<"$out")" "being created"
touch "$T/release"
wait "$pid"
berth path x >/dev/null
berth discard x >/dev/null 2>&1
rm -f "$T/release" "$T/checkout-started"

# Killed right after `git worktree add`: the record names a half-made tree.
BERTH_TEST_FAIL_AT=worktree:kill not 137 berth new y >/dev/null
expect_error not_found 4 berth --json path y >/dev/null
assert_eq "$(berth --json list | jq length)" 0

# A workspace still being created belongs to its creator: discard refuses it (busy, exit 5).
. "$(dirname "$0")/common.sh"
make_repo app
hold_checkouts '*.slow'
echo content >big.slow
git add -A && git commit -q -m "slow file"

berth new x >"$TMPDIR/new.out" &
creator=$!
wait_for_file "$T/checkout-started"
expect_error busy 5 berth --json discard x --force >/dev/null
assert_eq "$(berth --json list | jq -r '.[0].state')" creating
touch "$T/release"
wait "$creator"
assert_eq "$(cat "$(cat "$TMPDIR/new.out")/big.slow")" content
berth discard x >/dev/null

#!/usr/bin/env bash
# A failed set-up does not look like success: `new` exits 6 (not 0), says so once with how to
# run it again; `list` and `status` show it (text and JSON, setup_state), and `berth setup NAME`
# runs the set-up again and clears the mark once it succeeds.
. "$(dirname "$0")/common.sh"
make_repo app

ws=$(not 6 berth -c 'setup.run=exit 7' new x)
[[ -d $ws ]]
err=$(last_stderr)
assert_contains "$err" "its set-up failed"
assert_contains "$err" "berth setup x"
# Said once: not by the command's progress and again by the closing warning.
assert_eq "$(grep -c 'failed' <<<"$err")" 1 "lines telling the failure"

assert_eq "$(berth --json list | jq -r '.[] | select(.name == "x") | .setup_state')" failed
assert_eq "$(berth --json status x | jq -r .setup_state)" failed
assert_contains "$(berth list)" "setup-failed"
assert_contains "$(berth status x | grep '^setup')" "failed"
assert_contains "$(berth status x | grep '^setup')" "berth setup x"

# Run again, still failing: exit 6 again, the record names the new failure.
out=$(not 6 berth --json -c 'setup.run=exit 3' setup x)
assert_eq "$(jq -r .setup_state <<<"$out")" failed
assert_contains "$(berth --json status x | jq -r .setup_error)" "exit 3"
# Fixed: exit 0, the mark is gone.
out=$(berth --json -c 'setup.run=true' setup x)
assert_eq "$(jq -r .setup_state <<<"$out")" done
assert_eq "$(berth --json status x | jq -r .setup_error)" null
assert_not_contains "$(berth list)" "setup-failed"
assert_eq "$(berth setup x 2>/dev/null)" "set-up of x: done"

# A workspace nobody knows: not found, nothing changed.
before=$(fingerprint)
expect_error not_found 4 berth --json setup nope >/dev/null
assert_unchanged "$before"
berth discard x >/dev/null

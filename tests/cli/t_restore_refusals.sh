# restore refuses what it cannot do, changing nothing: an unknown name (not_found, exit 4), no
# name, a bad name, a name in use.
. "$(dirname "$0")/common.sh"
make_repo app
berth new x >/dev/null && berth discard x >/dev/null
berth new x >/dev/null
before=$(fingerprint)

out=$(expect_error not_found 4 berth --json restore nope)
assert_contains "$(jq -r .error.hint <<<"$out")" "restore --list"
not 4 berth restore nope >/dev/null
expect_error usage 2 berth --json restore >/dev/null
expect_error invalid_name 2 berth --json restore -- --x >/dev/null
expect_error name_taken 1 berth --json restore x >/dev/null
assert_unchanged "$before"

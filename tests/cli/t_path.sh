# `berth path NAME` prints the workspace's absolute path alone, from anywhere in the project.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new fix)
assert_eq "$(berth path fix)" "$ws"
assert_eq "$(cd src/lib && berth path fix)" "$ws"
assert_eq "$(cd "$ws/src" && berth path fix)" "$ws"
assert_eq "$(cd / && berth -C "$T/app" path fix)" "$ws"
assert_eq "$(berth --json path fix | jq -r .path)" "$ws"
cd "$(berth path fix)"
assert_eq "$PWD" "$ws"
cd "$T/app"

before=$(fingerprint)
expect_error not_found 4 berth --json path nope >/dev/null
not 4 berth path nope >/dev/null
assert_contains "$(last_stderr)" "no workspace named 'nope'"
expect_error invalid_name 2 berth --json path ../fix >/dev/null
expect_error usage 2 berth --json path >/dev/null
assert_unchanged "$before"

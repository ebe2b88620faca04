# accept --strategy ff after the user's branch moved on: exit 3 not_fast_forward, nothing changed
# (repository and workspace); merge then lands it.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new x)
echo agent >"$ws/agent.txt"
commit_file user.txt "user work"
before=$(fingerprint)
ws_before=$(fingerprint "$ws")

out=$(expect_error not_fast_forward 3 berth --json accept x --strategy ff)
assert_contains "$(jq -r .error.hint <<<"$out")" "merge"
assert_unchanged "$before"
assert_unchanged "$ws_before" "$ws"

berth accept x --strategy merge >/dev/null
assert_eq "$(cat agent.txt user.txt)" "$(printf 'agent\nuser work')"

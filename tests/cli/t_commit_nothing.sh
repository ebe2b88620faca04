# `berth commit` with nothing uncommitted: exit 0, says so, makes no commit.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new x)
before=$(fingerprint)
ws_before=$(fingerprint "$ws")

out=$(berth commit x -m "nothing")
assert_contains "$out" "nothing to commit"
assert_eq "$(berth --json commit x -m nothing | jq -r .commit)" null
assert_unchanged "$before"
assert_unchanged "$ws_before" "$ws"

# An ignored file is not work to commit either.
echo '*.log' >>"$(git rev-parse --git-common-dir)/info/exclude"
echo noise >"$ws/debug.log"
before=$(fingerprint)
berth commit x -m "nothing" >/dev/null
assert_unchanged "$before"

# A message is required.
not 2 berth commit x >/dev/null

# `berth doctor` on a healthy project: "all good", exit 0, in text and JSON; --repair on a healthy
# project changes nothing.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new x)
echo work >"$ws/w.txt"
assert_eq "$(berth doctor)" "all good"
assert_eq "$(berth --json doctor | jq -c .)" '{"pending":[],"problems":[],"repaired":[]}'
before=$(fingerprint)
assert_eq "$(berth doctor --repair)" "all good"
assert_unchanged "$before"

# `berth diff --against REV` measures from where REV and the workspace meet instead of the base;
# an unknown revision is refused with invalid_revision (exit 4) and nothing changes.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new x)
cd "$ws"
commit_file one.txt one "first step"
git tag step1
echo two >two.txt
cd "$T/app"

assert_eq "$(berth diff x --name-only)" "$(printf 'one.txt\ntwo.txt')"
assert_eq "$(berth diff x --name-only --against step1)" "two.txt"
# A branch the workspace never met: measured from the merge-base, so main's own later commits do
# not show up as reverted.
commit_file main-only.txt main
assert_eq "$(berth diff x --name-only --against main)" "$(printf 'one.txt\ntwo.txt')"
assert_eq "$(berth --json diff x --against main | jq -r .from)" "$(git rev-parse main~1)"

before=$(fingerprint)
expect_error invalid_revision 4 berth --json diff x --against no-such-rev >/dev/null
expect_error invalid_revision 4 berth --json diff x --against=--output=/tmp/x >/dev/null
assert_unchanged "$before"

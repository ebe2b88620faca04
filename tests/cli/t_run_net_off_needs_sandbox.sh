#!/usr/bin/env bash
# `--net off` without the sandbox would promise what nothing enforces: refused as a usage error
# (exit 2) before anything happens. So are an unknown sandbox and a bad --net value.
. "$(dirname "$0")/common.sh"
make_repo app
berth new task >/dev/null
before=$(fingerprint)
out=$(expect_error usage 2 berth --json run task --net off -- touch ran)
assert_contains "$(jq -r .error.hint <<<"$out")" "--sandbox"
expect_error usage 2 berth --json run task --sandbox=off --net off -- touch ran >/dev/null
expect_error usage 2 berth --json run task --sandbox=chroot -- touch ran >/dev/null
not 2 berth run task --net maybe -- touch ran >/dev/null
not 2 berth run --ephemeral fresh --net off -- touch ran >/dev/null
assert_unchanged "$before"
test ! -e "$(berth path task)/ran"
assert_eq "$(berth --json status task | jq -r .state)" ready "state"

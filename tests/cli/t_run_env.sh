#!/usr/bin/env bash
# --env K=V (repeatable) sets variables for the command; the caller's environment passes through;
# a malformed --env is a usage error that leaves the workspace as it was.
. "$(dirname "$0")/common.sh"
make_repo app
berth new task >/dev/null
assert_eq "$(berth run task --env GREETING=hello -- sh -c 'echo $GREETING')" hello "--env"
assert_eq "$(berth run task --env A=1 -e B=x=y -- sh -c 'echo "$A $B"')" "1 x=y" "two, = in value"
assert_eq "$(berth run task --env EMPTY= -- sh -c 'echo "[${EMPTY-unset}]"')" "[]" "empty value"
assert_eq "$(FROM_CALLER=yes berth run task -- sh -c 'echo $FROM_CALLER')" yes "inherited"
assert_eq "$(FROM_CALLER=yes berth run task --env FROM_CALLER=no -- sh -c 'echo $FROM_CALLER')" \
  no "--env wins"
# Options before NAME work too.
assert_eq "$(berth run --env A=2 task -- sh -c 'echo $A')" 2 "--env before NAME"
before=$(fingerprint)
expect_error usage 2 berth --json run task --env NOEQUALS -- true >/dev/null
expect_error usage 2 berth --json run task --env =value -- true >/dev/null
assert_unchanged "$before"
assert_eq "$(berth --json status task | jq -r .state)" ready "state"

#!/usr/bin/env bash
# A fork's task and a workspace's name are one namespace (`compare`, `discard` and `list` take
# either): `fork k` is refused while a workspace k exists, and `new k` while a fork k has
# attempts; nothing is made either way. Once the fork is gone the name is free again.
. "$(dirname "$0")/common.sh"
make_repo app
berth new k >/dev/null
echo mine >"$(berth path k)/k.txt"
before=$(fingerprint)
expect_error name_taken 1 berth --json fork k -n 2 -- true >/dev/null
not 1 berth fork k -n 2 -- true >/dev/null
assert_contains "$(last_stderr)" "workspace 'k' exists"
assert_unchanged "$before"
assert_eq "$(cat "$(berth path k)/k.txt")" mine

berth fork f -n 2 >/dev/null
for pool in 0 2; do
  before=$(fingerprint)
  BERTH_POOL_SIZE=$pool expect_error name_taken 1 berth --json new f >/dev/null
  BERTH_POOL_SIZE=$pool not 1 berth new f >/dev/null
  assert_contains "$(last_stderr)" "'f' is the task of a fork"
  assert_unchanged "$before"
done
assert_eq "$(berth --json list | jq -r '[.[].name] | sort | join(",")')" "f-1,f-2,k"

# The fork thrown away: the name is a workspace's to take.
berth discard f >/dev/null
berth new f >/dev/null
assert_eq "$(berth --json status f | jq -r .name)" f

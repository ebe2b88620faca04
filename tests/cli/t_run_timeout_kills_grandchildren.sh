#!/usr/bin/env bash
# --timeout stops the whole process group (TERM, then KILL for what ignores TERM), grandchildren
# started in the background included, and exits 124.
. "$(dirname "$0")/common.sh"
make_repo app
berth new task >/dev/null
marker=$((800000 + RANDOM))
start=$(date +%s)
not 124 berth run task --timeout 1 -- sh -c "
  sleep $marker &
  sh -c 'trap \"\" TERM; exec sleep $((marker + 1))' &
  sleep $((marker + 2))"
elapsed=$(($(date +%s) - start))
((elapsed < 15)) || { echo "took ${elapsed}s" >&2; false; }
assert_contains "$(last_stderr)" "timed out"
sleep 0.3
if pgrep -f "sleep $marker|sleep $((marker + 1))|sleep $((marker + 2))" >&2; then
  echo "a process of the command survived the timeout" >&2
  false
fi
out=$(not 124 berth --json run task --timeout 0.5 -- sleep $((marker + 3)))
assert_eq "$(jq -r .timed_out <<<"$out")" true "timed_out"
# A command that finishes in time is not affected.
assert_eq "$(berth run task --timeout 30 -- echo done)" done "in time"
expect_error usage 2 berth --json run task --timeout 0 -- true >/dev/null
# Past a year the deadline would overflow and stop the command at once: refused, as is inf.
for t in 1e18 inf; do
  out=$(expect_error usage 2 berth --json run task --timeout $t -- touch "$T/ran")
  assert_contains "$(jq -r .error.hint <<<"$out")" "leave the timeout out"
done
[[ ! -e $T/ran ]]
assert_eq "$(berth --json status task | jq -r .state)" ready "state"

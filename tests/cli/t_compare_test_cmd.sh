# `berth compare TASK --test -- CMD` runs CMD in every attempt (side by side, output kept, not
# interleaved) and reports each one's exit status and time; the attempts' own runs come from the
# fork's record. The numbers are taken before the test runs, so what it writes is not counted.
. "$(dirname "$0")/common.sh"
make_repo app
berth new t-1 >/dev/null
berth new t-2 >/dev/null
echo yes >"$(berth path t-1)/ok"
# The fork's record as `berth fork t -n 2 -- CMD` leaves it (docs/compare.md): attempt 1's command
# exited 0 after 1.5 s, attempt 2's was killed by its timeout.
forks="$(git rev-parse --path-format=absolute --git-common-dir)/berth/forks/t"
mkdir -p "$forks"
cat >"$forks/fork.json" <<JSON
{"version": 1, "task": "t", "base": "$(git rev-parse HEAD)", "attempts": 2, "created": 1,
 "command": ["agent"], "runs": [
  {"name": "t-1", "attempt": 1, "state": "exited", "exit_code": 0, "signal": null,
   "started_ms": 1000, "duration_ms": 1500, "log": "$forks/attempt-1.log"},
  {"name": "t-2", "attempt": 2, "state": "timed_out", "exit_code": null, "signal": 9,
   "started_ms": 1000, "duration_ms": 9000, "log": "$forks/attempt-2.log"}]}
JSON

doc=$(berth --json compare t --test -- sh -c 'echo "in $BERTH_NAME"; echo built >build.log; test -f ok')
assert_eq "$(jq -c '.test_command' <<<"$doc")" '["sh","-c","echo \"in $BERTH_NAME\"; echo built >build.log; test -f ok"]'
a() { jq -r --arg n "$1" ".attempts[] | select(.name == \$n) | $2" <<<"$doc"; }
assert_eq "$(a t-1 '[.test.exit_code, .test.timed_out] | join(" ")')" "0 false"
assert_eq "$(a t-2 '.test.exit_code')" 1
assert_eq "$(a t-1 '.test.output')" "in t-1"
assert_eq "$(a t-2 '.test.output')" "in t-2"
[[ $(a t-1 '.test.duration_ms') -ge 0 ]]
# build.log was written by the test, after the numbers were taken.
assert_eq "$(a t-1 '.files_changed')" 1
[[ -f $(berth path t-2)/build.log ]]
# The runs, from the record.
assert_eq "$(a t-1 '[.run.state, .run.exit_code, .run.duration_ms] | join(" ")')" "exited 0 1500"
assert_eq "$(a t-2 '[.run.state, .run.signal] | join(" ")')" "timed_out 9"

out=$(berth compare t --test --timeout 20 -- sh -c 'test -f ok')
grep -Eq '^t-1 .*exit 0 1\.5s.*pass' <<<"$out"
grep -Eq '^t-2 .*timed_out.*fail \(1\)' <<<"$out"

# Ctrl-C while the tests run stops every test command (no process left) and compare still
# reports, each stopped test with exit status 130, and exits 130.
setsid "$BERTH_BIN" --json compare t --test -- sh -c 'sleep 30; echo late' >"$T/int.json" 2>/dev/null &
pid=$!
for _ in $(seq 100); do pgrep -f "sleep 30; echo late" >/dev/null && break; sleep 0.05; done
sleep 0.3
kill -INT "$pid"
status=0
wait "$pid" || status=$?
assert_eq "$status" 130 "compare interrupted"
assert_eq "$(jq -r '[.attempts[].test.exit_code] | join(" ")' "$T/int.json")" "130 130"
not 1 pgrep -f "sleep 30; echo late" >/dev/null || { echo "a test command survived Ctrl-C" >&2; false; }

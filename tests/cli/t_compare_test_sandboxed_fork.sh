#!/usr/bin/env bash
# compare --test runs its command sandboxed when the fork was: the fork's record keeps the
# sandbox mechanism, --net and --env, and each attempt's test runs in that confinement (a write
# outside the attempt fails, and the result says sandboxed). An unsandboxed fork's test is not
# confined.
. "$(dirname "$0")/common.sh"
make_repo app
export OUTSIDE=$T/outside.txt

status=0
out=$(berth --json fork s -n 2 --sandbox --net off -e GREETING=hi -- sh -c 'echo "$GREETING $BERTH_ATTEMPT" >mine') || status=$?
if [[ $status != 0 ]] && grep -q "sandbox" <<<"$(jq -r '.fork.runs[0].error // ""' <<<"$out")"; then
  skip "landlock is not available here: $(jq -r '.fork.runs[0].error' <<<"$out")"
fi
assert_eq "$status" 0 "sandboxed fork"
assert_eq "$(jq -c '.fork | [.sandbox, .network, .env]' <<<"$out")" '["landlock",false,["GREETING=hi"]]'
forks=$(git rev-parse --path-format=absolute --git-common-dir)/berth/forks
assert_eq "$(jq -c '[.sandbox, .network, .env]' "$forks/s/fork.json")" '["landlock",false,["GREETING=hi"]]' "fork.json"

# fork's text says so.
assert_contains "$(berth fork s2 -n 1 --sandbox --net off -- true)" "sandboxed (landlock, network off)"

# The test tries to write outside its attempt: refused in every attempt, and the result says so.
doc=$(berth --json compare s --test -- sh -c 'echo "$GREETING $BERTH_ATTEMPT"; echo x >"$OUTSIDE"')
assert_eq "$(jq -c '[.attempts[].test | [.exit_code != 0, .sandboxed, .sandbox]]' <<<"$doc")" \
  '[[true,true,"landlock"],[true,true,"landlock"]]'
assert_contains "$(jq -r '.attempts[0].test.output' <<<"$doc")" "hi 1"
assert_contains "$(jq -r '.attempts[1].test.output' <<<"$doc")" "hi 2"
test ! -e "$OUTSIDE" || { echo "the sandboxed fork's test wrote outside its attempt" >&2; false; }
# Writing inside the attempt works (the confinement is the attempt, not a read-only world).
doc=$(berth --json compare s --test -- sh -c 'echo ok >inside')
assert_eq "$(jq -c '[.attempts[].test.exit_code]' <<<"$doc")" '[0,0]'
# The text table says the tests ran sandboxed.
assert_contains "$(berth compare s --test -- true)" "sandboxed"

# An unsandboxed fork: its test is not confined, as before.
berth fork u -n 2 -- true >/dev/null
doc=$(berth --json compare u --test -- sh -c 'echo x >"$OUTSIDE"')
assert_eq "$(jq -c '[.attempts[].test | [.exit_code, .sandboxed, .sandbox]]' <<<"$doc")" \
  '[[0,false,null],[0,false,null]]'
test -e "$OUTSIDE"
assert_eq "$(jq -c '[.sandbox, .network, .env]' "$forks/u/fork.json")" '[null,true,[]]'

#!/usr/bin/env bash
# fork: an attempt whose set-up fails is said as `new` says it (a warning naming the attempt and
# `berth setup NAME`, exit status 6), never a fork that looks ready; the attempts are kept and
# marked, and the command still runs in each. A failing command still makes it exit 1.
. "$(dirname "$0")/common.sh"
make_repo app
fail_setup='setup.run=["echo preparing; exit 7"]'

# Without a command: exit 6, one warning per attempt, the attempts kept and marked.
not 6 berth -c "$fail_setup" fork bare -n 2 >/dev/null
err=$(last_stderr)
assert_contains "$err" "workspace bare-1 was created, but its set-up failed"
assert_contains "$err" "workspace bare-2 was created, but its set-up failed"
assert_contains "$err" "berth setup bare-2"
list=$(berth --json list)
assert_eq "$(jq -r '[.[] | select(.fork == "bare") | .setup_state] | join(",")' <<<"$list")" \
  "failed,failed"

# With a command that succeeds: it ran in every attempt, and the fork still exits 6.
out=$(not 6 berth --json -c "$fail_setup" fork cmd -n 2 -- sh -c 'echo ran >ran.txt')
assert_eq "$(jq -r '[.fork.runs[] | .state + ":" + (.exit_code | tostring)] | join(" ")' <<<"$out")" \
  "exited:0 exited:0"
assert_eq "$(cat "$(berth path cmd-2)/ran.txt")" ran
assert_contains "$(last_stderr)" "workspace cmd-1 was created, but its set-up failed"

# A command that fails: 1 wins over 6 (the command's failure is the worse news).
not 1 berth -c "$fail_setup" fork bad -n 2 -- false 2>/dev/null >/dev/null

# A set-up that works: exit 0, no warning.
err=$(berth -c 'setup.run=["true"]' fork good -n 2 -- true 2>&1 >/dev/null)
if grep -q "set-up failed" <<<"$err"; then
  echo "a set-up that worked was reported as failed: $err" >&2
  exit 1
fi

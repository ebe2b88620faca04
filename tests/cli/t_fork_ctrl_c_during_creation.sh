#!/usr/bin/env bash
# fork -- CMD: Ctrl-C while the attempts are being made (the terminal signals berth's whole
# process group) lets the creation finish and starts no command (exit 130, every attempt made and
# ready, `not_started`): git's checkouts run in process groups of their own, so the signal does
# not kill one half-way (the fork failed with an empty reason and rolled its attempts back).
. "$(dirname "$0")/common.sh"
make_repo app
hold_checkouts '*.held'
echo data >file.held
git add -A && git commit -qm held

setsid "$BERTH_BIN" --json -c pool.size=0 fork held -n 2 -- sh -c 'echo ran >ran.txt' \
  >"$T/out" 2>"$T/err" &
pid=$!
ctrl_c_while_held "$pid"
assert_eq "$CTRL_C_STATUS" 130 "fork's exit status (stderr: $(cat "$T/err"))"
assert_eq "$(jq -r '[.fork.runs[].state] | join(",")' "$T/out")" "not_started,not_started"
list=$(berth --json list)
assert_eq "$(jq -r '[.[] | select(.fork == "held") | .name + ":" + .state] | join(",")' <<<"$list")" \
  "held-1:ready,held-2:ready"
for i in 1 2; do
  assert_eq "$(cat "$(berth path "held-$i")/file.held")" data
  test ! -e "$(berth path "held-$i")/ran.txt"
done

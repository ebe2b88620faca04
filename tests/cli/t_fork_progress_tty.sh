#!/usr/bin/env bash
# fork -- CMD's live progress: on a terminal one line per attempt (state, elapsed time, last line
# of its output) redrawn in place, ending with one final line per attempt; when stderr is not a
# terminal a line per start and end; under --json NDJSON events only.
. "$(dirname "$0")/common.sh"
command -v script >/dev/null || skip "script(1) is not installed (util-linux)"
make_repo app

# On a terminal (a pty from script(1)).
TERM=xterm COLUMNS=60 script -qec "$BERTH_BIN fork p -n 2 -- sh -c 'echo first-\$BERTH_ATTEMPT; sleep 1; echo last-\$BERTH_ATTEMPT-$(printf 'x%.0s' {1..100})'" /dev/null >"$T/tty.out"
tr -d '\r' <"$T/tty.out" >"$T/tty.txt"
# Redrawn in place: the cursor goes up over the attempts' lines, more than once (the elapsed
# time ticks while they run).
ups=$(grep -o $'\e\\[2A' "$T/tty.txt" | wc -l)
((ups >= 2)) || { echo "no redraw (cursor up) in the progress: $(cat -v "$T/tty.txt")" >&2; false; }
# A line showed the first output line while the attempts ran.
grep -q 'first-1' "$T/tty.txt"
# The end: after the last cursor movement, one line per attempt with its final state and last
# line, shortened to the terminal's width (60 columns).
final=$(awk -v RS=$'\e\\[2A' 'END { print }' "$T/tty.txt" | sed $'s/\e\\[2K//g' | grep -E '^p-[0-9]')
assert_eq "$(grep -c . <<<"$final")" 2 "final lines"
grep -Eq '^p-1 +exit 0 +[0-9.]+s +last-1-x+…$' <<<"$final"
grep -Eq '^p-2 +exit 0 +[0-9.]+s +last-2-x+…$' <<<"$final"
while IFS= read -r line; do line=${line//…/.} && ((${#line} < 60)) || { echo "too wide: $line" >&2; false; }; done <<<"$final"
grep -q 'forked p into 2 attempts' "$T/tty.txt"

# Not a terminal: a line per start and per end, no cursor movement.
"$BERTH_BIN" fork q -n 2 -- sh -c 'echo out' >/dev/null 2>"$T/err"
not 1 grep -q $'\e' "$T/err"
assert_eq "$(grep -c '^berth: q-[12] running$' "$T/err")" 2 "start lines"
assert_eq "$(grep -Ec '^berth: q-[12] exit 0 \([0-9.]+s\)$' "$T/err")" 2 "end lines"

# --json: NDJSON events (no output lines: the log has those).
"$BERTH_BIN" --json fork j -n 2 -- sh -c 'echo out; sleep 0.3; echo more' >/dev/null 2>"$T/events"
assert_eq "$(jq -r .type "$T/events" | sort | uniq -c | awk '{print $2 ":" $1}' | tr '\n' ' ')" \
  "attempt_finished:2 attempt_started:2 "

#!/usr/bin/env bash
# A post-merge hook that asks the user a question on the terminal works through `berth accept`
# on a terminal: accept's git calls run in process groups of their own (so Ctrl-C reaches berth
# alone, docs/crashes.md), but the hook, run once the landing is whole, stays in berth's group,
# where it may read the terminal. In a group of its own it would be stopped (SIGTTIN) and accept
# would wait forever.
. "$(dirname "$0")/common.sh"
command -v script >/dev/null || skip "script (util-linux) is not installed"
make_repo app
cat >.git/hooks/post-merge <<'HOOK'
#!/bin/sh
printf 'which ticket? ' >/dev/tty
read -r answer </dev/tty
echo "$answer" >"$(git rev-parse --git-dir)/hook-answer"
HOOK
chmod +x .git/hooks/post-merge
berth new w >/dev/null
echo change >"$(berth path w)/change.txt"
berth commit w -m change >/dev/null

# script(1) gives accept a terminal; the answer is typed once the question is there, and the
# terminal's input stays open until script is done (each wait bounded: a hung accept is
# script's timeout's to end).
{
  for ((i = 0; i < 400; i++)); do grep -q 'which ticket?' "$T/tty.out" 2>/dev/null && break; sleep 0.05; done
  printf 'T-42\n'
  for ((i = 0; i < 700; i++)); do [[ -e $T/script-done ]] && break; sleep 0.05; done
} | {
  timeout 30 script -qec "$(printf '%q ' "$BERTH_BIN" accept w --strategy merge)" /dev/null \
    >"$T/tty.out" 2>&1 || echo $? >"$T/script-status"
  touch "$T/script-done"
} || true # (the typing side, when script ended before the question: what it left is checked below)
status=$(cat "$T/script-status" 2>/dev/null || echo 0)
[[ $status != 124 ]] || { cat "$T/tty.out" >&2; echo "accept hung on the hook's question" >&2; false; }
assert_eq "$status" 0 "accept's exit status"
assert_eq "$(cat .git/hook-answer)" T-42 "what the hook read from the terminal"
assert_contains "$(cat "$T/tty.out")" "which ticket?"
assert_eq "$(git show HEAD:change.txt)" change

#!/usr/bin/env bash
# `berth discard TASK` throws a whole fork away: every attempt goes to the trash (restorable), the
# fork's record with the last one, and the TASK name is free again. While an attempt's command
# runs, it is refused and nothing changes. A name that is neither a workspace nor a fork is
# not_found, as before.
. "$(dirname "$0")/common.sh"
make_repo app
forks=$(git rev-parse --path-format=absolute --git-common-dir)/berth/forks

berth fork try -n 3 >/dev/null
echo "attempt two" >"$(berth path try-2)/two.txt"
out=$(berth --json discard try)
assert_eq "$(jq -r '.task, ([.discarded[].workspace.name] | join(",")), .fork_removed' <<<"$out" |
  paste -sd' ')" "try try-1,try-2,try-3 true"
assert_eq "$(berth --json list | jq length)" 0
test ! -e "$forks/try"
berth restore try-2 >/dev/null
assert_eq "$(cat "$(berth path try-2)/two.txt")" "attempt two" "the restored attempt's work"
berth discard try-2 >/dev/null
# The name is free for a new fork; text output names each attempt.
berth fork try -n 2 >/dev/null
out=$(berth discard try)
assert_contains "$out" "discarded try-1 (saved as refs/berth/trash/try-1/"
assert_contains "$out" "fork try removed"

# While an attempt's command runs: refused, nothing changed.
berth fork busy -n 2 >/dev/null
"$BERTH_BIN" run busy-1 -- sh -c "touch '$T/started'; sleep 30" >/dev/null 2>&1 &
runner=$!
wait_for_file "$T/started"
before=$(fingerprint)
expect_error busy 5 berth --json discard busy >/dev/null
assert_unchanged "$before"
assert_eq "$(berth --json list | jq -r '[.[].name] | join(",")')" "busy-1,busy-2"
kill "$runner"
wait "$runner" || true

# --no-trash with unsaved work in one attempt: the others go, that one stays with its work, and
# the document says which and why (`failed`), its error's status the exit status.
berth fork part -n 3 >/dev/null
echo "keep me" >"$(berth path part-2)/work.txt"
status=0
out=$(berth --json discard --no-trash part 2>"$T/part.err") || status=$?
assert_eq "$(jq -r '[.discarded[].workspace.name] | join(",")' <<<"$out")" "part-1,part-3"
assert_eq "$(jq -r '.failed[] | [.name, .error.code] | join(" ")' <<<"$out")" "part-2 unsaved_work"
assert_eq "$status" 5 "exit status: unsaved_work's"
assert_eq "$(jq -r .fork_removed <<<"$out")" false
assert_eq "$(cat "$(berth path part-2)/work.txt")" "keep me" "the refused attempt's work"
assert_contains "$(cat "$T/part.err")" "part-2"

expect_error not_found 4 berth --json discard nothing >/dev/null

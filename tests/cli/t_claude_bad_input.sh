#!/usr/bin/env bash
# A hook input Claude Code would not send (malformed JSON, empty stdin, a missing or mistyped
# field, no cwd and no CLAUDE_PROJECT_DIR, the other event's input): a one-line error on stderr
# naming the code (invalid_hook_input, exit 2), and nothing created or removed.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new keep 2>/dev/null)
echo work >"$ws/work.txt"
before=$(fingerprint)
create() { berth hook claude worktree-create; }
remove() { berth hook claude worktree-remove; }
check() { # check HOOK INPUT WHAT: refused with invalid_hook_input, WHAT in the message
  local out
  out=$(not 2 "$1" <<<"$2")
  assert_eq "$out" "" "stdout of a refused hook"
  local err
  err=$(last_stderr)
  assert_contains "$(head -n 1 <<<"$err")" "[invalid_hook_input]"
  assert_contains "$(head -n 1 <<<"$err")" "$3"
}
check create '{"session_id": "s", "cwd": "'"$T/app"'", "hook_event_name": "WorktreeCreate", "name": "x"' "not valid JSON"
check create '' "stdin is empty"
check create '["x"]' "expected a JSON object"
check create '{"session_id": "s", "cwd": "'"$T/app"'", "hook_event_name": "WorktreeCreate"}' 'field "name" is missing'
check create '{"session_id": "s", "cwd": "'"$T/app"'", "hook_event_name": "WorktreeCreate", "name": 7}' 'field "name" is not a string'
check create '{"session_id": "s", "hook_event_name": "WorktreeCreate", "name": "x"}' 'field "cwd" is missing'
check create '{"session_id": "s", "cwd": "app", "hook_event_name": "WorktreeCreate", "name": "x"}' "not absolute"
check create '{"session_id": "s", "cwd": "'"$T/app"'", "hook_event_name": "WorktreeRemove", "worktree_path": "'"$ws"'"}' 'hook_event_name is "WorktreeRemove"'
check remove '{"session_id": "s", "cwd": "'"$T/app"'", "hook_event_name": "WorktreeRemove"}' 'field "worktree_path" is missing'
check remove '{"session_id": "s", "cwd": "'"$T/app"'", "hook_event_name": "WorktreeCreate", "name": "keep"}' 'hook_event_name is "WorktreeCreate"'
check remove 'not json' "not valid JSON"
# Present but empty: a caller's bug, said as such (not "missing").
check remove '{"session_id": "s", "cwd": "'"$T/app"'", "hook_event_name": "WorktreeRemove", "worktree_path": ""}' 'field "worktree_path" is empty'
# --json: the error document.
out=$(expect_error invalid_hook_input 2 berth --json hook claude worktree-create <<<'{')
assert_contains "$(jq -r .error.hint <<<"$out")" "nothing was changed"
# Not a hook berth has: a usage error.
not 2 berth hook claude worktree-explode <<<'{}' >/dev/null
not 2 berth hook codex worktree-create <<<'{}' >/dev/null
assert_eq "$(fingerprint)" "$before" "nothing changed"
assert_eq "$(cat "$ws/work.txt")" work
echo "ok: bad inputs refused, nothing changed"

#!/usr/bin/env bash
# gc removes a landed or idle workspace with a trash snapshot, but its ignored files (build
# output, coverage reports) are not saved, as with `discard`: the reason says so, in the dry run
# and the real run alike; a workspace without ignored files has no such note.
. "$(dirname "$0")/common.sh"
make_repo app
echo "coverage/" >.gitignore
git add .gitignore
git commit -qm "ignore coverage"
berth new built >/dev/null
mkdir "$(berth path built)/coverage"
echo "report" >"$(berth path built)/coverage/notes.txt"
berth new plain >/dev/null
dry=$(berth --json gc --dry-run --older-than 0s)
reason() { jq -r --arg n "$1" '.removed[] | select(.name == $n) | .reason' <<<"$2"; }
assert_contains "$(reason built "$dry")" "its ignored files (build output and the like) are not saved"
assert_not_contains "$(reason plain "$dry")" "ignored files"
assert_contains "$(berth gc --dry-run --older-than 0s)" "are not saved"
real=$(berth --json gc --older-than 0s)
assert_eq "$(reason built "$real")" "$(reason built "$dry")" "the real run's reason"

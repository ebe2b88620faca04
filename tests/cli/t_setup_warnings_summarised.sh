#!/usr/bin/env bash
# Set-up speaks once per thing: a .worktreeinclude entry naming a file git does not ignore is
# warned about (it used to be skipped silently), no warning is printed twice, and a folder of
# copied files (husky's generated .husky/_ hooks) is one line, not one per file.
. "$(dirname "$0")/common.sh"
make_repo app
printf '.env\n' >.gitignore
printf '.env\nnotes.txt\n' >.worktreeinclude
mkdir -p .husky/_
echo '*' >.husky/_/.gitignore
for i in $(seq 1 17); do printf '#!/bin/sh\n' >".husky/_/hook$i"; done
git add .gitignore .worktreeinclude && git commit -qm include
git config core.hooksPath .husky/_
echo SECRET=1 >.env
echo draft >notes.txt # named, but not ignored

ws=$(berth new x 2>"$T/err")
[[ -f $ws/.env && ! -e $ws/notes.txt && -f $ws/.husky/_/hook17 ]]
assert_contains "$(cat "$T/err")" "notes.txt not copied"
assert_contains "$(cat "$T/err")" "git does not ignore it"
assert_eq "$(grep -c 'notes.txt' "$T/err")" 1 "warning lines"
assert_eq "$(grep -c 'copied .husky' "$T/err")" 1 "copy lines for .husky/_"
assert_contains "$(cat "$T/err")" "copied .husky/_/ (18 files"
# No line of the output twice.
assert_eq "$(sort "$T/err" | uniq -d)" "" "repeated lines"

json=$(berth --json new y 2>"$T/events")
assert_eq "$(jq -r '[.setup.copies[] | select(.kind == "hooks")] | length' <<<"$json")" 1
assert_eq "$(jq -r '.setup.copies[] | select(.kind == "hooks") | .files' <<<"$json")" 18
assert_eq "$(grep -c 'notes.txt' "$T/events")" 1 "warning events"

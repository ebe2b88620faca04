#!/usr/bin/env bash
# `run --ephemeral` keeps the workspace when the command changed anything (a new file, an edit,
# a commit) and says so, with its path, on stderr and in the JSON.
. "$(dirname "$0")/common.sh"
make_repo app
berth run --ephemeral one -- sh -c 'echo new >new.txt' 2>"$T/err"
ws=$(berth path one)
assert_contains "$(cat "$T/err")" "kept workspace one"
assert_contains "$(cat "$T/err")" "$ws"
assert_eq "$(cat "$ws/new.txt")" new "the change"
out=$(berth --json run --ephemeral two -- sh -c 'echo edit >>README.md' 2>/dev/null)
assert_eq "$(jq -r .kept <<<"$out")" true "kept"
assert_eq "$(jq -r .path <<<"$out")" "$(berth path two)" "path"
berth run --ephemeral three -- sh -c 'git commit -q --allow-empty -m inside' 2>/dev/null
assert_eq "$(git log -1 --format=%s berth/three)" inside "commit kept"
# Sandboxed too, where the sandbox is available.
if berth run --ephemeral four --sandbox=best-effort -- sh -c 'echo x >x.txt' 2>/dev/null; then
  test -e "$(berth path four)/x.txt"
fi

#!/usr/bin/env bash
# `berth integrate claude` leaves a settings file its owner made read-only as it is: refused with
# read_only_file (exit 5), content and mode unchanged, no backup; a writable file keeps its mode.
. "$(dirname "$0")/common.sh"
make_repo app
mkdir -p .claude
printf '{"model": "x"}\n' >.claude/settings.local.json
chmod 444 .claude/settings.local.json
before=$(fingerprint)
out=$(expect_error read_only_file 5 berth --json integrate claude --local)
assert_contains "$(jq -r .error.hint <<<"$out")" "chmod u+w"
assert_eq "$(cat .claude/settings.local.json)" '{"model": "x"}'
assert_eq "$(stat -c %a .claude/settings.local.json)" 444 "mode"
[[ ! -e .claude/settings.local.json.berth-backup ]] || { echo "a backup was written" >&2; exit 1; }
assert_unchanged "$before"

chmod 640 .claude/settings.local.json
berth integrate claude --local >/dev/null
assert_eq "$(stat -c %a .claude/settings.local.json)" 640 "mode of a rewritten file"
jq -e '.hooks.WorktreeCreate | length == 1' .claude/settings.local.json >/dev/null
echo "ok: a read-only settings file is left alone"

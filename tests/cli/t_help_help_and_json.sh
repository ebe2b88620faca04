#!/usr/bin/env bash
# `berth help help` explains help (exit 0), and help under --json is JSON (docs/schema/help.json,
# checked by the schema check as every --json document is): every command with its parameters,
# or one command's; an unknown command is a usage error document.
. "$(dirname "$0")/common.sh"
make_repo app

out=$(berth help help)
assert_contains "$out" "usage: berth help [COMMAND]"

doc=$(berth --json help)
assert_eq "$(jq -r '[.commands[].name] | index("run") != null and index("mcp") != null and index("help") != null' <<<"$doc")" true "commands listed"
assert_eq "$(jq -c '.commands[] | select(.name == "run") | .params[] | select(.name == "sandbox") | [.option, .implicit_value, (.choices | index("off") != null)]' <<<"$doc")" \
  '["--sandbox","landlock",true]' "run's sandbox parameter"
# Internal plumbing is not offered.
assert_eq "$(jq '[.commands[].params[] | select(.name == "input")] | length' <<<"$doc")" 0 "stdin parameters"

one=$(berth --json help run)
assert_eq "$(jq -c '[.commands[].name]' <<<"$one")" '["run"]'
assert_eq "$(berth --json run --help)" "$one" "run --help under --json"
assert_eq "$(jq -c '[.commands[].name]' <<<"$(berth --json help help)")" '["help"]'
expect_error usage 2 berth --json help nope >/dev/null
echo "ok: help help, and help as JSON"

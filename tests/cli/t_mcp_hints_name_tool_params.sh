#!/usr/bin/env bash
# An operation's error reaches an MCP client in the tool's words: the CLI's `--timeout`,
# `--sandbox`, `--net=off` (and `--force`) are the tool's `timeout_s`, `sandbox: true`,
# `net: false` (`force: true`), since an agent has no command line (docs/mcp.md, Failures).
. "$(dirname "$0")/common.sh"
. "$TESTS_DIR/mcp_call_helpers.sh"
make_repo app
berth new w >/dev/null
before=$(fingerprint)

err=$(mcp_error "$(mcp_tool "$T/app" workspace_run '{"name": "w", "command": ["true"], "timeout_s": 1e9}')")
assert_eq "$(jq -r .code <<<"$err")" usage
assert_contains "$(jq -r .message <<<"$err")" '`timeout_s` 1000000000'
assert_not_contains "$(jq -c . <<<"$err")" "--timeout"

err=$(mcp_error "$(mcp_tool "$T/app" workspace_run \
  '{"name": "w", "command": ["true"], "sandbox": false, "net": false}' --allow-unsandboxed)")
assert_eq "$(jq -r .code <<<"$err")" usage
assert_contains "$(jq -r .message <<<"$err")" '`net: false` needs the sandbox'
assert_contains "$(jq -r .hint <<<"$err")" '`sandbox: true`'
assert_not_contains "$(jq -c . <<<"$err")" "--"

# The CLI keeps its own words.
out=$(expect_error usage 2 berth --json run w --timeout 1e9 -- true)
assert_contains "$(jq -r .error.message <<<"$out")" "--timeout 1000000000"
assert_unchanged "$before"
echo "ok: MCP hints name the tool's parameters"

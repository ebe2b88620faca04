#!/usr/bin/env bash
# `berth mcp` spoken to line by line, without an SDK: the stateless 2026-07-28 revision
# (server/discover, _meta, resultType), malformed input of every kind answered with the code
# JSON-RPC names while the server keeps serving, a cancelled run, and a clean exit at the end of
# stdin with no child left (raw_stdio.mjs says what is checked).
. "$(dirname "$0")/mcp_helpers.sh"

make_repo app
node "$MCP_DIR/raw_stdio.mjs" "$BERTH_BIN" "$T/app"

# Global options before the command, as for every command: `berth -C DIR mcp`.
reply=$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"ping"}' | (cd / && "$BERTH_BIN" -C "$T/app" --quiet mcp))
assert_eq "$(jq -c '[.id, .result]' <<<"$reply")" '[1,{}]'
assert_contains "$(cd / && "$BERTH_BIN" -C "$T/app" help mcp)" "--allow-accept"

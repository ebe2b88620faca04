#!/usr/bin/env bash
# `berth mcp` spoken to line by line, without an SDK: the stateless 2026-07-28 revision
# (server/discover, _meta, resultType), malformed input of every kind answered with the code
# JSON-RPC names while the server keeps serving, a cancelled run, and a clean exit at the end of
# stdin with no child left (raw_stdio.mjs says what is checked).
. "$(dirname "$0")/mcp_helpers.sh"

make_repo app
node "$MCP_DIR/raw_stdio.mjs" "$BERTH_BIN" "$T/app"

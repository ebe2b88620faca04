#!/usr/bin/env bash
# workspace_fork and workspace_pick through the official MCP SDK client (sdk_fork.mjs says what).
. "$(dirname "$0")/mcp_helpers.sh"

make_repo app
node "$MCP_DIR/sdk_fork.mjs" "$BERTH_BIN" "$T/app"
assert_eq "$(git -C "$T/app" show HEAD:answer.txt)" 1
not 1 pgrep -f -- "$BERTH_BIN mcp -C $T/app"

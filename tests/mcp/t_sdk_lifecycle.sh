#!/usr/bin/env bash
# The official MCP TypeScript SDK client drives `berth mcp` through a whole lifecycle
# (sdk_lifecycle.mjs says what is checked).
. "$(dirname "$0")/mcp_helpers.sh"

make_repo app
mkdir -p "$T/scratch"
node "$MCP_DIR/sdk_lifecycle.mjs" "$BERTH_BIN" "$T/app" "$T/scratch"
# The accepted change is on the user's branch, and the server left nothing running.
grep -q 'land it' <<<"$(git -C "$T/app" log -1 --format=%s)"
not 1 pgrep -f -- "$BERTH_BIN mcp -C $T/app"

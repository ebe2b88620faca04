# One MCP tool call from a behaviour test, without a client library: `berth mcp` reads the request
# on stdin, answers it, and ends at the end of stdin (after answering what it was asked; its
# "cancelled" notes about that go to $T/mcp.err). Not for a run that must not be stopped.

# mcp_tool REPO TOOL ARGUMENTS-JSON [SERVER-OPTION...]: the result object of one tools/call.
mcp_tool() {
  local repo=$1 tool=$2 arguments=$3
  shift 3
  jq -cn --arg tool "$tool" --argjson arguments "$arguments" \
    '{jsonrpc: "2.0", id: 1, method: "tools/call", params: {name: $tool, arguments: $arguments}}' |
    "$BERTH_BIN" mcp -C "$repo" "$@" 2>>"$T/mcp.err" | jq -c 'select(.id == 1) | .result'
}

# mcp_error RESULT: the error object of a failed tool result (its text item holds the document).
mcp_error() {
  jq -c 'if .isError then .content[0].text | fromjson | .error else "(not an error result)" end' <<<"$1"
}

#!/usr/bin/env bash
# `berth mcp` in a folder that is no git repository: workspace_create makes it a plain folder
# (and `plain: true` in a repository's subfolder); sdk_plain.mjs says what is checked.
. "$(dirname "$0")/mcp_helpers.sh"
. "$MCP_DIR/../cli/plain_helpers.sh"

F=$T/folder
mkdir -p "$F"
echo notes >"$F/notes.txt"
before=$(folder_digest "$F")
make_repo app
before_repo=$(fingerprint)
node "$MCP_DIR/sdk_plain.mjs" "$BERTH_BIN" "$F" "$T/app/docs"
assert_folder_unchanged "$before" "$F" "the MCP calls"
# The repository has no workspace, branch or other change of berth's.
cd "$T/app"
assert_unchanged "$before_repo"
assert_eq "$(berth --json list | jq 'length')" 0 "the repository's workspaces"

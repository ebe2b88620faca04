#!/usr/bin/env bash
# The MCP file tools' refusals each say what to do (a hint, never empty) and change nothing: a path
# through a file, a name too long, a workspace whose folder was deleted by hand, a glob that
# fnmatch would misread (`[`), and a file read-only to its owner, which write and edit refuse
# (read_only_file) rather than replace it behind its mode (docs/mcp.md).
. "$(dirname "$0")/common.sh"
. "$TESTS_DIR/mcp_call_helpers.sh"
make_repo app
ws=$(berth new w)
mcp_tool "$T/app" workspace_write_file '{"name": "w", "path": "a/b.txt", "content": "x"}' >/dev/null

# check TOOL ARGS CODE TEXT: the call fails with CODE, its message has TEXT, its hint is not empty.
check() {
  local err
  err=$(mcp_error "$(mcp_tool "$T/app" "$1" "$2")")
  assert_eq "$(jq -r .code <<<"$err")" "$3" "code of $1 $2"
  assert_contains "$(jq -r .message <<<"$err")" "$4"
  [[ -n $(jq -r .hint <<<"$err") ]] || { echo "empty hint: $1 $2: $err" >&2; return 1; }
}

before=$(fingerprint "$ws")
check workspace_read_file '{"name": "w", "path": "a/b.txt/c"}' not_found "is a file, not a folder"
long=$(printf 'x%.0s' {1..300})
check workspace_read_file '{"name": "w", "path": "'"$long"'"}' usage "name too long"
check workspace_write_file '{"name": "w", "path": "'"$long"'", "content": "y"}' usage "name too long"

# A glob fnmatch would take literally: refused, not an empty listing.
check workspace_list_files '{"name": "w", "pattern": "["}' usage "has no closing ]"
check workspace_list_files '{"name": "w", "pattern": "*.md\\"}' usage "lone backslash"
listed=$(mcp_tool "$T/app" workspace_list_files '{"name": "w", "pattern": "[R]*"}')
assert_eq "$(jq -c '[.structuredContent.entries[].name]' <<<"$listed")" '["README.md"]' "a good set"

# Read-only to its owner: refused by write and edit, the file as it was.
printf 'keep\n' >"$ws/ro.txt"
chmod 444 "$ws/ro.txt"
before=$(fingerprint "$ws")
check workspace_write_file '{"name": "w", "path": "ro.txt", "content": "changed"}' read_only_file "read-only"
check workspace_edit_file '{"name": "w", "path": "ro.txt", "old_string": "keep", "new_string": "x"}' read_only_file "read-only"
assert_eq "$(cat "$ws/ro.txt")" keep "content of the read-only file"
assert_eq "$(stat -c %a "$ws/ro.txt")" 444 "mode of the read-only file"
assert_unchanged "$before" "$ws"
# Any other file keeps its mode when rewritten.
printf 'run\n' >"$ws/tool.sh"
chmod 750 "$ws/tool.sh"
mcp_tool "$T/app" workspace_write_file '{"name": "w", "path": "tool.sh", "content": "ran"}' >/dev/null
assert_eq "$(stat -c %a "$ws/tool.sh"):$(cat "$ws/tool.sh")" "750:ran" "a rewritten file's mode"

# The workspace's folder deleted by hand: the hint says how to clean up, as workspace_diff's does.
rm -rf "$ws"
err=$(mcp_error "$(mcp_tool "$T/app" workspace_write_file '{"name": "w", "path": "a", "content": "x"}')")
assert_eq "$(jq -r .code <<<"$err")" not_found
assert_contains "$(jq -r .hint <<<"$err")" "berth discard w"
[[ ! -e $ws ]] || { echo "the write made the deleted folder again" >&2; exit 1; }
echo "ok: file tool refusals have hints and change nothing"

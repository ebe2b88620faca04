# MCP `workspace_gc`: a dry run unless `apply: true`; the same operation (and document) as `berth gc`.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/mcp_call_helpers.sh"
make_repo app
berth new idle >/dev/null
before=$(fingerprint)
res=$(mcp_tool "$T/app" workspace_gc '{"older_than": "0s"}')
assert_eq "$(jq -r .isError <<<"$res")" false
doc=$(jq -c .structuredContent <<<"$res")
assert_eq "$(jq -c '[.dry_run, [.removed[] | .category + " " + .name]]' <<<"$doc")" '[true,["idle idle"]]'
assert_unchanged "$before"
res=$(mcp_tool "$T/app" workspace_gc '{"older_than": "0s", "apply": true}')
assert_eq "$(jq -c '.structuredContent | [.dry_run, (.removed | length)]' <<<"$res")" '[false,1]'
assert_eq "$(berth --json list | jq length)" 0
res=$(mcp_tool "$T/app" workspace_gc '{"older_than": "soon"}')
assert_eq "$(mcp_error "$res" | jq -r .code)" bad_duration

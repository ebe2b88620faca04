#!/usr/bin/env bash
# MCP workspace_compare's `html`: the review page is written in the project, never elsewhere
# (the agent is confined to its workspaces): an absolute path, a `..` or `.git` component and a
# folder that leads outside through a symlink are refused (escape_refused), nothing written; a
# file name in the project works.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/mcp_call_helpers.sh"
make_repo app
berth fork try -n 2 >/dev/null
echo one >"$(berth path try-1)/one.txt"
mkdir -p "$T/outside"
echo precious >"$T/outside/precious.txt"
ln -s "$T/outside" "$T/app/out-link"
echo out-link >>.git/info/exclude
config_before=$(cat .git/config)

for html in "$T/outside/precious.txt" ../outside/precious.txt out-link/precious.txt \
  .git/config sub/../../outside/precious.txt; do
  res=$(mcp_tool "$T/app" workspace_compare "$(jq -cn --arg h "$html" '{names: ["try"], html: $h}')")
  assert_eq "$(mcp_error "$res" | jq -r .code)" escape_refused "html $html"
done
assert_eq "$(cat "$T/outside/precious.txt")" precious
assert_eq "$(cat .git/config)" "$config_before"

# Inside the project: written, and the result names it.
mkdir -p build
res=$(mcp_tool "$T/app" workspace_compare '{"names": ["try"], "html": "build/review.html"}')
assert_eq "$(jq -r .isError <<<"$res")" false
assert_eq "$(jq -r .structuredContent.html <<<"$res")" "$T/app/build/review.html"
assert_contains "$(cat build/review.html)" "one.txt"

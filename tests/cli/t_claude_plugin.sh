#!/usr/bin/env bash
# The Claude Code plugin in integrations/claude-code/ is well-formed: a manifest with a kebab-case
# name, and hooks/hooks.json with exactly berth's two hooks in exec form (command + args, timeout
# 600), the same ones `berth integrate claude` writes; and the command they run exists.
. "$(dirname "$0")/common.sh"
plugin=$SOURCE_DIR/integrations/claude-code
jq -e . "$plugin/.claude-plugin/plugin.json" >/dev/null
assert_eq "$(jq -r .name "$plugin/.claude-plugin/plugin.json")" berth
[[ $(jq -r .version "$plugin/.claude-plugin/plugin.json") =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]
hooks=$plugin/hooks/hooks.json
jq -e . "$hooks" >/dev/null
assert_eq "$(jq -r '.hooks | keys | join(",")' "$hooks")" "WorktreeCreate,WorktreeRemove"
# Each event: one group of one command handler in exec form, no matcher (worktree events take none).
assert_eq "$(jq '[.hooks[][] | select(has("matcher"))] | length' "$hooks")" 0
for event in WorktreeCreate:worktree-create WorktreeRemove:worktree-remove; do
  name=${event%%:*} sub=${event#*:}
  assert_eq "$(jq -c --arg e "$name" '.hooks[$e]' "$hooks")" \
    "[{\"hooks\":[{\"type\":\"command\",\"command\":\"berth\",\"args\":[\"hook\",\"claude\",\"$sub\"],\"timeout\":600}]}]"
  # What it runs is a berth command (a usage error would be exit 2; empty input is exit 2 with
  # invalid_hook_input, proving the command parsed).
  not 2 "$BERTH_BIN" hook claude "$sub" </dev/null >/dev/null
  assert_contains "$(last_stderr)" "[invalid_hook_input]"
done
# The same hooks `berth integrate claude` merges into settings.json.
make_repo app
berth integrate claude >/dev/null 2>&1
assert_eq "$(jq -cS .hooks .claude/settings.json)" "$(jq -cS .hooks "$hooks")"
echo "ok: plugin manifest and hooks.json"

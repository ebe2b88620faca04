#!/usr/bin/env bash
# `berth integrate claude` merges berth's two hooks into a Claude Code settings file that has
# other settings and another WorktreeCreate hook: every other setting is kept (order too), the
# previous content is kept in settings.json.berth-backup, and it warns that the other
# WorktreeCreate hook orphans worktrees. A second run changes nothing and says so; --remove takes
# out exactly berth's entries; a malformed file is refused (settings_invalid) and left untouched.
. "$(dirname "$0")/common.sh"
make_repo app
mkdir -p .claude
cat >.claude/settings.json <<'JSON'
{
  "permissions": {"allow": ["Bash(npm test)"], "deny": []},
  "model": "opus",
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./lint.sh"}]}],
    "WorktreeCreate": [{"hooks": [{"type": "command", "command": "./make-worktree.sh"}]}]
  },
  "unknownFutureKey": {"nested": [1, 2, {"x": null}]}
}
JSON
original=$(cat .claude/settings.json)

out=$(berth integrate claude 2>"$T/err")
assert_contains "$out" "berth is now Claude Code's worktree provider in $T/app/.claude/settings.json"
assert_contains "$(cat "$T/err")" "other WorktreeCreate hook(s) configured"
assert_contains "$(cat "$T/err")" "./make-worktree.sh"
assert_eq "$(cat .claude/settings.json.berth-backup)" "$original" "backup"
# The backup is berth's file: it stays out of `git status` (.git/info/exclude).
assert_eq "$(git status --porcelain --untracked-files=all -- .claude/settings.json.berth-backup)" ""
assert_contains "$(cat .git/info/exclude)" "/.claude/settings.json.berth-backup"
s=.claude/settings.json
# Every other setting as it was, in its order; berth's hooks added in exec form.
assert_eq "$(jq -c 'del(.hooks)' $s)" "$(jq -c 'del(.hooks)' <<<"$original")"
assert_eq "$(jq -r 'keys_unsorted | join(",")' $s)" "permissions,model,hooks,unknownFutureKey"
assert_eq "$(jq -c .hooks.PreToolUse $s)" "$(jq -c .hooks.PreToolUse <<<"$original")"
assert_eq "$(jq -c '.hooks.WorktreeCreate[0]' $s)" '{"hooks":[{"type":"command","command":"./make-worktree.sh"}]}'
assert_eq "$(jq -c '.hooks.WorktreeCreate[1]' $s)" '{"hooks":[{"type":"command","command":"berth","args":["hook","claude","worktree-create"],"timeout":600}]}'
assert_eq "$(jq -c '.hooks.WorktreeRemove' $s)" '[{"hooks":[{"type":"command","command":"berth","args":["hook","claude","worktree-remove"],"timeout":600}]}]'
after=$(cat $s)

# Idempotent: nothing changes, and it says so.
doc=$(berth --json integrate claude --project 2>/dev/null)
assert_eq "$(jq -r '.action + " " + (.changed | tostring) + " " + .backup' <<<"$doc")" "unchanged false "
assert_eq "$(jq -r '.other_hooks[0]' <<<"$doc")" "$T/app/.claude/settings.json: ./make-worktree.sh"
assert_contains "$(berth integrate claude 2>/dev/null)" "nothing to do"
assert_eq "$(cat $s)" "$after" "second run"

# --remove: exactly berth's entries go; the rest is as before berth came.
out=$(berth integrate claude --remove 2>/dev/null)
assert_contains "$out" "removed berth's hooks"
assert_eq "$(jq -S . $s)" "$(jq -S . <<<"$original")" "berth-free again"
assert_eq "$(cat .claude/settings.json.berth-backup)" "$after" "backup of the integrated file"
assert_contains "$(berth integrate claude --remove 2>/dev/null)" "nothing to do"

# --user: ~/.claude/settings.json, made when missing (no backup: there was nothing to keep).
doc=$(berth --json integrate claude --user 2>/dev/null)
assert_eq "$(jq -r '.scope + " " + .settings + " " + .action + " [" + .backup + "]"' <<<"$doc")" "user $HOME/.claude/settings.json added []"
assert_eq "$(jq -c 'keys' "$HOME/.claude/settings.json")" '["hooks"]'
berth integrate claude --user --remove >/dev/null 2>&1
assert_eq "$(jq -c . "$HOME/.claude/settings.json")" '{}'
# A settings file that is a symlink (a dotfiles manager's) is written through the link, and keeps
# its mode; $CLAUDE_CONFIG_DIR moves the user settings as it moves Claude Code's.
mkdir -p "$T/dotfiles" && echo '{"theme": "dark"}' >"$T/dotfiles/claude.json" && chmod 600 "$T/dotfiles/claude.json"
rm "$HOME/.claude/settings.json" && ln -s "$T/dotfiles/claude.json" "$HOME/.claude/settings.json"
berth integrate claude --user >/dev/null 2>&1
[[ -L $HOME/.claude/settings.json ]] || { echo "the symlink was replaced" >&2; exit 1; }
assert_eq "$(jq -r '.theme + " " + (.hooks | keys | join(","))' "$T/dotfiles/claude.json")" "dark WorktreeCreate,WorktreeRemove"
assert_eq "$(stat -c %a "$T/dotfiles/claude.json")" 600 "mode"
assert_eq "$(stat -c %a "$T/dotfiles/claude.json.berth-backup")" 600 "backup's mode"
doc=$(CLAUDE_CONFIG_DIR=$T/cc berth --json integrate claude --user 2>/dev/null)
assert_eq "$(jq -r .settings <<<"$doc")" "$T/cc/settings.json"
[[ -f $T/cc/settings.json ]]
# --local: .claude/settings.local.json; the project file's own hook is still reported.
doc=$(berth --json integrate claude --local 2>/dev/null)
assert_eq "$(jq -r '.settings + " " + (.other_hooks | length | tostring)' <<<"$doc")" "$T/app/.claude/settings.local.json 1"
assert_eq "$(git status --porcelain --untracked-files=all -- .claude/settings.local.json)" "" "settings.local.json is not to be committed"
berth integrate claude --user --remove >/dev/null 2>&1
not 2 berth integrate claude --user --project >/dev/null

# Malformed settings: refused, the file untouched, no backup written.
rm -f .claude/settings.json.berth-backup
printf '{"model": "opus",\n  "hooks": {\n' >.claude/settings.json
bad=$(cat .claude/settings.json)
out=$(expect_error settings_invalid 2 berth --json integrate claude)
assert_contains "$(jq -r .error.message <<<"$out")" "not valid JSON (line 3"
assert_eq "$(cat .claude/settings.json)" "$bad"
[[ ! -e .claude/settings.json.berth-backup ]]
echo '{"hooks": []}' >.claude/settings.json
expect_error settings_invalid 2 berth --json integrate claude >/dev/null
echo '[1]' >.claude/settings.json
expect_error settings_invalid 2 berth --json integrate claude --remove >/dev/null
assert_eq "$(cat .claude/settings.json)" "[1]"
# Valid JSON berth cannot keep exactly (a number past a double): refused, untouched.
echo '{"x": 1e400}' >.claude/settings.json
expect_error settings_invalid 2 berth --json integrate claude >/dev/null
assert_eq "$(cat .claude/settings.json)" '{"x": 1e400}'
echo "ok: merged, idempotent, removed, malformed refused"

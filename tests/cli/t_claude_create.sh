#!/usr/bin/env bash
# Claude Code's WorktreeCreate hook, fed the JSON Claude Code sends, anchored at
# $CLAUDE_PROJECT_DIR: berth makes a workspace outside the checkout, from the warm pool, with its
# own set-up (the .worktreeinclude files, which Claude Code skips when a hook is configured), owned
# by the Claude session, and prints its real path (no symlink, no . or ..) as the only and last
# line of stdout; the rest goes to stderr. With --json, the hook document.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
# Workspaces under a symlinked home: the path Claude Code gets must still be the real one.
ln -s "$T/home" "$T/homelink"
export HOME=$T/homelink
make_repo app 20
printf '.env\n' >.gitignore
printf '.env\n' >.worktreeinclude
git add -A && git commit -qm 'include .env'
echo SECRET=1 >.env
# A set-up command (your own config: no trust needed) that talks on stdout and stderr: none of it
# may reach the hook's stdout, which Claude Code reads as the path.
mkdir -p "$XDG_CONFIG_HOME/berth"
printf '[setup]\nrun = ["echo setup-says-hi; echo setup-warns >&2"]\n' >"$XDG_CONFIG_HOME/berth/config.toml"
export BERTH_POOL_SIZE=1
berth pool fill >/dev/null

input=$(jq -n --arg cwd "$T/app/src" '{session_id: "abc123", transcript_path: "/home/u/.claude/projects/x/abc123.jsonl", cwd: $cwd, hook_event_name: "WorktreeCreate", name: "feature-auth", some_future_field: {"x": 1}}')
# Claude Code runs the hook with CLAUDE_PROJECT_DIR set, from wherever it is.
out=$(cd / && CLAUDE_PROJECT_DIR=$T/app timeout 60 "$BERTH_BIN" hook claude worktree-create <<<"$input" 2>"$T/err")
assert_eq "$(wc -l <<<"$out")" 1 "lines on stdout"
path=$(tail -n 1 <<<"$out")
assert_eq "$path" "$(realpath -e "$path")" "the path is real"
[[ $path == "$T/home/berth/"* ]] || { echo "not under ~/berth: $path" >&2; exit 1; }
[[ $path != "$T/app"* ]] || { echo "inside the checkout: $path" >&2; exit 1; }
assert_contains "$(cat "$T/err")" "created workspace 'feature-auth' for Claude Code"
assert_contains "$(cat "$T/err")" "setup-says-hi"
assert_contains "$(cat "$T/err")" "setup-warns"
# A workspace like any other: on its branch at the checkout's HEAD, clean, from a pool slot.
assert_eq "$(git -C "$path" symbolic-ref HEAD)" refs/heads/berth/feature-auth
assert_eq "$(git -C "$path" rev-parse HEAD)" "$(git rev-parse HEAD)"
assert_eq "$(git -C "$path" status --porcelain)" ""
assert_contains "$(git -C "$path" rev-parse --absolute-git-dir)" "/worktrees/slot-"
# berth's set-up ran: the ignored .env came along.
assert_eq "$(cat "$path/.env")" "SECRET=1" ".worktreeinclude copy"
status=$(berth --json status feature-auth)
assert_eq "$(jq -r .owner <<<"$status")" "claude:abc123"
assert_eq "$(realpath "$(jq -r .path <<<"$status")")" "$path"

# Anchored at the input's cwd when CLAUDE_PROJECT_DIR is not set; --json gives the document.
input2=$(jq -n --arg cwd "$T/app" '{session_id: "s2", cwd: $cwd, hook_event_name: "WorktreeCreate", name: "second"}')
doc=$(cd / && berth --json hook claude worktree-create <<<"$input2" 2>/dev/null)
assert_eq "$(jq -r '.event + " " + .outcome + " " + .name + " " + .owner' <<<"$doc")" "WorktreeCreate created second claude:s2"
assert_eq "$(jq -r .path <<<"$doc")" "$(realpath "$(berth path second)")"
assert_eq "$(jq -r .workspace.name <<<"$doc")" second
wait_for_fillers
pool_quiesce
echo "ok: created $path"

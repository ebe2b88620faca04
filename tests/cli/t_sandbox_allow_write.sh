#!/usr/bin/env bash
# An agent CLI that keeps its state in $HOME (~/.claude) runs confined with --allow-write
# ~/.claude (or sandbox.writable); everything else in $HOME stays read-only. The project's git dir,
# its hooks, git's config (included files too) and berth's own config are never writable: asking
# is refused (sandbox_path_refused, exit 5) and nothing runs. Both mechanisms, as root and as an unprivileged user.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

# Stands in for the agent: it records a session in its state dir, then edits the workspace.
fake_agent='mkdir -p "$HOME/.claude/projects" && echo "{\"session\": 1}" >"$HOME/.claude/projects/state.json" && echo fixed >"$BERTH_WORKSPACE/fix.txt"'

attempt() {
  local before project
  project=$PWD
  mkdir -p "$HOME/.claude" "$HOME/.codex"
  [[ $WHO == nobody ]] && chown -R $NOBODY:$NOBODY "$HOME"
  before=$(fingerprint)
  # Without the flag: the agent cannot keep its state (the defect), nor write anything else.
  escape "$fake_agent"
  test ! -e "$HOME/.claude/projects/state.json"
  ESCAPE_OPTS=(--allow-write '~/.claude')
  allowed "$fake_agent"
  assert_eq "$(cat "$HOME/.claude/projects/state.json")" '{"session": 1}' state
  escape 'echo x >"$HOME/.codex/state"' # only what was allowed
  escape 'echo x >"$HOME/.bashrc"'
  ESCAPE_OPTS=()
  test ! -e "$HOME/.codex/state"
  test ! -e "$HOME/.bashrc"
  # A file (Claude Code keeps ~/.claude.json beside ~/.claude): rewritten in place, while its
  # folder stays read-only (no sibling can be made).
  echo '{}' >"$HOME/.claude.json"
  [[ $WHO == nobody ]] && chown $NOBODY:$NOBODY "$HOME/.claude.json"
  ESCAPE_OPTS=(--allow-write '~/.claude.json')
  allowed 'echo "{\"n\": 1}" >"$HOME/.claude.json"'
  assert_eq "$(cat "$HOME/.claude.json")" '{"n": 1}' "the allowed file"
  escape 'echo x >"$HOME/.claude.json.tmp"'
  ESCAPE_OPTS=()
  test ! -e "$HOME/.claude.json.tmp"
  rm "$HOME/.claude.json"
  # The config key does the same.
  rm -rf "$HOME/.claude/projects"
  as_user env BERTH_SANDBOX_WRITABLE='~/.claude' "$BERTH_BIN" run agent --sandbox="$MECH" -- sh -c "$fake_agent"
  test -s "$HOME/.claude/projects/state.json"

  # Never git's files: the git dir, a path inside it, the hooks, the checkout holding .git, the
  # global config; a path overlapping a hidden one; a path that does not exist. Nothing runs.
  for path in .git .git/hooks .git/config "$project" "$HOME" '~/.gitconfig' '~/.config/git'; do
    expect_error sandbox_path_refused 5 berth --json run agent --sandbox="$MECH" \
      --allow-write "$path" -- touch "$HOME/.claude/ran" >/dev/null
  done
  expect_error sandbox_path_refused 5 as_user env BERTH_SANDBOX_WRITABLE="$project/.git" \
    "$BERTH_BIN" --json run agent --sandbox="$MECH" -- touch "$HOME/.claude/ran" >/dev/null
  git config core.hooksPath "$HOME/hooks"
  mkdir -p "$HOME/hooks"
  expect_error sandbox_path_refused 5 berth --json run agent --sandbox="$MECH" \
    --allow-write '~/hooks' -- touch "$HOME/.claude/ran" >/dev/null
  git config --unset core.hooksPath
  # Nor a config file git includes (its aliases and core.fsmonitor run as the user), applied
  # here or only in other repositories, nor berth's own config and trust store (the user's
  # setup.run runs without asking) or its plain folders' git dirs.
  mkdir -p "$HOME/gitinc" "$XDG_CONFIG_HOME/berth" "$XDG_DATA_HOME/berth/plain"
  touch "$HOME/gitinc/work.gitconfig" "$HOME/elsewhere.gitconfig"
  git config --global include.path '~/gitinc/work.gitconfig'
  git config --global includeIf.gitdir:/nowhere/.path elsewhere.gitconfig
  [[ $WHO == nobody ]] && chown -R $NOBODY:$NOBODY "$HOME"
  for path in '~/gitinc/work.gitconfig' '~/gitinc' '~/elsewhere.gitconfig' \
    "$XDG_CONFIG_HOME/berth" "$XDG_DATA_HOME/berth/plain" "$XDG_DATA_HOME/berth"; do
    out=$(expect_error sandbox_path_refused 5 berth --json run agent --sandbox="$MECH" \
      --allow-write "$path" -- touch "$HOME/.claude/ran")
    assert_contains "$out" "own files (they run code as you)"
  done
  git config --global --unset include.path
  git config --global --remove-section includeIf.gitdir:/nowhere/
  expect_error sandbox_path_refused 5 berth --json run agent --sandbox="$MECH" \
    --allow-write '~/.ssh' -- touch "$HOME/.claude/ran" >/dev/null
  out=$(expect_error usage 2 berth --json run agent --sandbox="$MECH" \
    --allow-write '~/nowhere' -- touch "$HOME/.claude/ran")
  assert_contains "$out" "touch $HOME/nowhere"
  expect_error usage 2 berth --json run agent --allow-write '~/.claude' -- touch "$HOME/.claude/ran" >/dev/null
  test ! -e "$HOME/.claude/ran"
  test ! -e "$HOME/nowhere"
  assert_eq "$(cat "$(berth path agent)/fix.txt")" fixed "the agent's edit"
  rm "$(berth path agent)/fix.txt"
  assert_unchanged "$before"
}
escape_matrix attempt

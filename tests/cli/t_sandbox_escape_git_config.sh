#!/usr/bin/env bash
# A sandboxed command cannot change the shared .git/config with `git config` (core.fsmonitor or
# an alias there would run its code when the user next runs git), nor the config file directly.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

attempt() {
  local before
  before=$(fingerprint)
  escape 'git config core.fsmonitor "touch $BERTH_WORKSPACE/../pwned"'
  escape 'git config --local alias.st "!touch pwned"'
  escape 'git -C "$BERTH_PROJECT" config core.fsmonitor "touch pwned"'
  escape 'git config --file "$(git rev-parse --git-common-dir)/config" core.pager "touch pwned"'
  escape 'git config extensions.worktreeConfig true'
  escape 'echo "[core] fsmonitor = touch pwned" >>"$(git rev-parse --git-common-dir)/config"'
  escape 'git config --global core.fsmonitor "touch pwned"'
  # The user's git runs nothing.
  git status >/dev/null
  test ! -e "$(berth path agent)/../pwned"
  test ! -e pwned
  assert_unchanged "$before"
}
escape_matrix attempt

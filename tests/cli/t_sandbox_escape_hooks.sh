#!/usr/bin/env bash
# A sandboxed command cannot plant a hook in the shared .git/hooks (git would run it as the user
# on their next commit), nor point core.hooksPath elsewhere.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

attempt() {
  local before common
  before=$(fingerprint)
  common=$(common_dir)
  ls -la "$common/hooks" >"$TMPDIR/hooks.before"
  escape 'printf "#!/bin/sh\ntouch \"$1\"\n" >"$(git rev-parse --git-common-dir)/hooks/pre-commit"'
  escape 'cp "$(git rev-parse --git-common-dir)/hooks/pre-commit.sample"     "$(git rev-parse --git-common-dir)/hooks/post-checkout"'
  escape 'mkdir -p "$(git rev-parse --git-common-dir)/hooks/x"'
  escape 'rm "$(git rev-parse --git-common-dir)/hooks/pre-commit.sample"'
  escape 'git config core.hooksPath "$BERTH_WORKSPACE/.hooks"'
  ls -la "$common/hooks" >"$TMPDIR/hooks.after"
  diff "$TMPDIR/hooks.before" "$TMPDIR/hooks.after"
  test ! -e "$common/hooks/pre-commit"
  # The user's next commit runs no hook.
  commit_file notes.txt "mine"
  assert_eq "$(git config core.hooksPath || echo unset)" unset "core.hooksPath"
  git reset -q --hard HEAD~1
  assert_unchanged "$before"
}
escape_matrix attempt

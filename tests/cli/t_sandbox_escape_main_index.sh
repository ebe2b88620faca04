#!/usr/bin/env bash
# A sandboxed command cannot write the main checkout's index (staging or unstaging the user's
# files), with git or directly.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

attempt() {
  local before
  echo "work in progress" >>README.md
  git add README.md
  echo "more" >>README.md
  before=$(fingerprint)
  escape 'git -C "$BERTH_PROJECT" add README.md'
  escape 'git -C "$BERTH_PROJECT" rm -q --cached src/main.c'
  escape 'git -C "$BERTH_PROJECT" reset -q'
  escape 'GIT_INDEX_FILE="$(git rev-parse --git-common-dir)/index" git read-tree --empty'
  escape ': >"$(git rev-parse --git-common-dir)/index"'
  escape 'cp "$(git rev-parse --git-dir)/index" "$(git rev-parse --git-common-dir)/index"'
  assert_unchanged "$before"
  git diff --cached --quiet && false
  git reset -q --hard
}
escape_matrix attempt

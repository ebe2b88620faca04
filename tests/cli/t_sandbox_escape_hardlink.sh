#!/usr/bin/env bash
# A sandboxed command cannot hard-link a file from outside into its workspace (and write it
# through the link), nor link a file of its workspace into the main checkout.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

attempt() {
  local before
  before=$(fingerprint)
  escape 'ln "$BERTH_PROJECT/README.md" linked && echo pwned >linked'
  escape 'ln "$BERTH_PROJECT/src/main.c" "$BERTH_WORKSPACE/src/main-link.c"'
  escape 'ln README.md "$BERTH_PROJECT/from-workspace.md"'
  escape 'ln "$(git rev-parse --git-common-dir)/config" stolen-config'
  test ! -e "$(berth path agent)/linked"
  test ! -e "$(berth path agent)/src/main-link.c"
  [[ $(stat -c %h README.md) == 1 ]]
  assert_unchanged "$before"
}
escape_matrix attempt

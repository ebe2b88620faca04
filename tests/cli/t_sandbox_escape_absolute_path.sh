#!/usr/bin/env bash
# A sandboxed command cannot write the main checkout by its absolute path.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

attempt() {
  local before
  before=$(fingerprint)
  escape 'echo pwned >"$BERTH_PROJECT/README.md"'
  escape 'echo pwned >>"$BERTH_PROJECT/src/main.c"'
  escape ': >"$BERTH_PROJECT/docs/guide.md"'
  escape 'echo pwned >"$BERTH_PROJECT/new-file.txt"'
  escape 'mkdir "$BERTH_PROJECT/new-dir"'
  escape 'rm -f "$BERTH_PROJECT/docs/guide.md"'
  escape 'mv "$BERTH_PROJECT/src/main.c" "$BERTH_WORKSPACE/stolen.c"'
  # (Under bwrap the rename crosses a mount: mv copies, which reading allows, then fails to
  # remove the original. The copy in the workspace is no escape.)
  rm -f "$(berth path agent)/stolen.c"
  escape 'mv "$BERTH_PROJECT/src/main.c" "$BERTH_PROJECT/src/moved.c"'
  escape 'ln -sf /etc/passwd "$BERTH_PROJECT/GUIDE"'
  assert_unchanged "$before"
}
escape_matrix attempt

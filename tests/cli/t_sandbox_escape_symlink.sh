#!/usr/bin/env bash
# A symlink planted in the workspace pointing outside does not let a sandboxed command write
# there: to a file, to a directory, or as a dangling link that would create a file.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

attempt() {
  local before
  allowed 'ln -s "$BERTH_PROJECT/README.md" to-file && ln -s "$BERTH_PROJECT" to-dir &&
    ln -s "$BERTH_PROJECT/planted.txt" dangling'
  # A link planted before the run (say, by an earlier unsandboxed command) is no different.
  ln -s "$PWD/src/lib/util.c" "$(berth path agent)/pre-planted"
  before=$(fingerprint)
  escape 'echo pwned >to-file'
  escape 'echo pwned >>to-file'
  escape 'echo pwned >to-dir/new.txt'
  escape 'echo pwned >to-dir/src/main.c'
  escape 'echo pwned >dangling'
  escape 'rm to-dir/docs/guide.md'
  escape 'echo pwned >pre-planted'
  test ! -e planted.txt
  assert_unchanged "$before"
}
escape_matrix attempt

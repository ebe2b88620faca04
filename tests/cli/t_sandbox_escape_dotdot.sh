#!/usr/bin/env bash
# A sandboxed command cannot leave its workspace with ../ (to the folder of the workspaces, or to
# the main checkout by a relative path).
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

attempt() {
  local before ws
  before=$(fingerprint)
  ws=$(berth path agent)
  escape 'echo pwned >../escaped.txt'
  escape 'mkdir ../escaped-dir'
  escape 'cd .. && echo pwned >escaped.txt'
  escape 'echo pwned >"$(realpath --relative-to=. "$BERTH_PROJECT")/README.md"'
  escape 'echo pwned >"$(realpath --relative-to=. "$BERTH_PROJECT")/../escaped.txt"'
  escape 'echo pwned >src/../../escaped.txt'
  test ! -e "$ws/../escaped.txt"
  test ! -e "$ws/../escaped-dir"
  test ! -e "$PWD/../escaped.txt"
  assert_unchanged "$before"
}
escape_matrix attempt

#!/usr/bin/env bash
# `run --ephemeral` creates the workspace, runs, and removes it when the command changed nothing.
. "$(dirname "$0")/common.sh"
make_repo app
refs=$(git for-each-ref)
assert_eq "$(berth run --ephemeral scratch -- sh -c 'test "$BERTH_NAME" = scratch && echo ran')" ran \
  "output"
not 4 berth path scratch
# No branch, no trash snapshot: nothing was there to keep.
assert_eq "$(git for-each-ref)" "$refs" "refs"
# (The folder of the workspaces stays, from now on.)
before=$(fingerprint)
out=$(berth --json run --ephemeral scratch -- true 2>"$T/err")
assert_eq "$(jq -r .kept <<<"$out")" false "kept"
assert_contains "$(cat "$T/err")" "removed workspace scratch"
# Removed whatever the command's status; the status still passes through.
not 3 berth run --ephemeral scratch -- sh -c 'exit 3'
not 4 berth path scratch
assert_unchanged "$before"
# A name that exists is refused (nothing changes).
berth new taken >/dev/null
before=$(fingerprint)
expect_error name_taken 1 berth --json run --ephemeral taken -- true >/dev/null
assert_unchanged "$before"

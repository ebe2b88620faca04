#!/usr/bin/env bash
# With --net on (the default), a sandboxed command reaches a TCP listener on 127.0.0.1.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

attempt() {
  start_listener tcp
  ESCAPE_OPTS=(--net on)
  allowed "$(client tcp "$LISTEN_ADDR")"
  ESCAPE_OPTS=()
  assert_contains "$(cat "$TMPDIR/escape.out")" "hello from the host"
  assert_contains "$(cat "$LISTEN_LOG")" "data secret"
  stop_listener
}
escape_matrix attempt

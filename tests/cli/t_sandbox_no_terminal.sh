#!/usr/bin/env bash
# A sandboxed command has no controlling terminal (a new session): it cannot push keystrokes
# into the user's shell with TIOCSTI (the seccomp filter refusing TIOCSTI itself is a unit test).
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

attempt() {
  allowed 'ps -o tty=,sid=,pid= -p $$ >"$BERTH_WORKSPACE/tty.txt"'
  local tty sid pid
  read -r tty sid pid <"$(berth path agent)/tty.txt"
  assert_eq "$tty" "?" "controlling terminal"
  # Its own session, not the caller's.
  [[ $sid != "$(ps -o sid= -p $$ | tr -d ' ')" ]]
  escape 'exec 3</dev/tty'
}
escape_matrix attempt

#!/usr/bin/env bash
# Nothing of a sandboxed run outlives it: a process that left the run's session and process
# group (`setsid … &`, a daemon) is stopped when the command ends — under Landlock through the
# run's own IPC namespace, under bwrap through its pid namespace — so nothing writes the
# workspace on, unseen, after berth said the run was over. Both mechanisms, root and a user.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

attempt() {
  local ws marker=$((3000 + RANDOM % 1000)) i
  ws=$(berth path agent)
  # A daemon that would keep writing into the workspace.
  berth run agent --sandbox="$MECH" -- sh -c \
    "setsid sh -c 'while sleep 0.$marker; do date >>\"\$BERTH_WORKSPACE/daemon.log\"; done' </dev/null >/dev/null 2>&1 &
     sleep 0.3; echo started" >"$TMPDIR/daemon.out"
  assert_contains "$(cat "$TMPDIR/daemon.out")" started
  for ((i = 0; i < 50; i++)); do
    pgrep -f "sleep 0.$marker" >/dev/null || break
    sleep 0.1
  done
  not 1 pgrep -f "sleep 0.$marker"
  local size
  size=$(stat -c %s "$ws/daemon.log" 2>/dev/null || echo 0)
  sleep 1
  assert_eq "$(stat -c %s "$ws/daemon.log" 2>/dev/null || echo 0)" "$size" "daemon.log's size a second after the run"
  rm -f "$ws/daemon.log"
}
escape_matrix attempt

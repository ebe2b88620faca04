#!/usr/bin/env bash
# Where the kernel gives no private network namespace (user namespaces disabled, no
# CAP_SYS_ADMIN: a locked-down container), --net off fails closed: `run --net off` is refused with
# sandbox_unavailable and nothing runs or changes; --sandbox=best-effort runs, says what is
# missing, and still reaches neither the host's loopback nor its unix sockets (TCP and unix
# sockets refused). The kernel refusal is real: berth runs inside bwrap --unshare-user
# --disable-userns --cap-drop ALL, where unshare(CLONE_NEWUSER) fails with ENOSPC and
# unshare(CLONE_NEWNET) with EPERM.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

BWRAP=$(command -v bwrap) || skip "bwrap is not installed"
REAL_BERTH=$BERTH_BIN
NO_USERNS=(--dev-bind / / --unshare-user --disable-userns --cap-drop ALL --)
"$BWRAP" "${NO_USERNS[@]}" true 2>/dev/null || skip "bwrap cannot build the no-user-namespace world"
BERTH_BIN=$T/berth-no-userns
printf '#!/bin/sh\nexec %q %s %q "$@"\n' "$BWRAP" "${NO_USERNS[*]}" "$REAL_BERTH" >"$BERTH_BIN"
chmod 755 "$BERTH_BIN"

attempt() {
  local before out
  # The world is what it claims: the kernel refuses both namespaces there.
  not 1 as_user "$BWRAP" "${NO_USERNS[@]}" unshare -U true
  not 1 as_user "$BWRAP" "${NO_USERNS[@]}" unshare -n true

  before=$(fingerprint)
  expect_error sandbox_unavailable 1 berth --json run agent --sandbox=landlock --net off -- sh -c 'echo ran >"$BERTH_WORKSPACE/ran"'
  assert_contains "$(cat "$TMPDIR/not.out")" "no private network namespace"
  # The hint does not send the user to bwrap, which needs the same namespaces.
  assert_contains "$(jq -r .error.hint "$TMPDIR/not.out")" "--sandbox=bwrap needs them too"
  assert_contains "$(jq -r .error.hint "$TMPDIR/not.out")" "--sandbox=best-effort"
  [[ ! -e $(berth path agent)/ran ]]
  # Nor does bwrap's send the user to Landlock, which cannot have a private network here either
  # (without --net off, Landlock is the way).
  expect_error sandbox_unavailable 1 berth --json run agent --sandbox=bwrap --net off -- sh -c 'echo ran >"$BERTH_WORKSPACE/ran"'
  assert_contains "$(jq -r .error.hint "$TMPDIR/not.out")" "--sandbox=landlock needs them too"
  assert_contains "$(jq -r .error.hint "$TMPDIR/not.out")" "--sandbox=best-effort"
  expect_error sandbox_unavailable 1 berth --json run agent --sandbox=bwrap -- sh -c 'echo ran >"$BERTH_WORKSPACE/ran"'
  assert_contains "$(jq -r .error.hint "$TMPDIR/not.out")" "or use --sandbox=landlock"
  [[ ! -e $(berth path agent)/ran ]]
  assert_unchanged "$before"

  # best-effort: runs, names what is missing, and the host stays out of reach.
  start_listener tcp
  local tcp_port=$LISTEN_ADDR tcp_log=$LISTEN_LOG tcp_pid=$LISTENER_PID
  start_listener unix
  MECH=best-effort ESCAPE_OPTS=(--net off)
  escape "$(client tcp "$tcp_port")"
  assert_contains "$(cat "$TMPDIR/escape.err")" "not enforced: no private network namespace"
  escape "$(client unix "$LISTEN_ADDR")"
  MECH=landlock ESCAPE_OPTS=()
  sleep 0.1
  heard_nothing "$tcp_log" "$LISTEN_LOG"
  stop_listener
  LISTENER_PID=$tcp_pid
  stop_listener
}
MECH_ONLY=landlock escape_matrix attempt

#!/usr/bin/env bash
# --net off and the standard streams: a socket of the host's network namespace handed to the run
# on stdin/stdout/stderr would carry it out (a UDP socket sends anywhere with sendto, an
# unconnected TCP socket connects with its first MSG_FASTOPEN send, and a connect berth makes is
# refused for a socket of another namespace anyway). Such a stream is refused before anything
# runs (sandbox_unavailable, exit 1, nothing heard, nothing changed); a connected stream socket
# (an orchestrator's channel) is fine; --sandbox=best-effort runs and says what is not enforced.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

# given KIND STREAM-FD CMD...: run berth with a socket of KIND (udp, tcp, pair) as the stream
# STREAM-FD; prints berth's exit status, then its stdout and stderr.
given() {
  "$PY" - "$@" <<'PY'
import socket, subprocess, sys
kind, fd, argv = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
if kind == "udp": s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
elif kind == "tcp": s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
else: s, peer = socket.socketpair()
streams = {"stdin": subprocess.DEVNULL, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
streams[("stdin", "stdout", "stderr")[fd]] = s
done = subprocess.run(argv, text=True, **streams)
print(done.returncode); print(done.stdout or ""); print(done.stderr or "")
PY
}

attempt() {
  local before out port
  start_listener udp
  port=$LISTEN_ADDR
  before=$(fingerprint)
  local send_udp="import socket; socket.socket(fileno=0).sendto(b'escaped', ('127.0.0.1', $port)); print('SENT')"
  out=$(given udp 0 $(as_user_prefix) "$BERTH_BIN" run agent --sandbox="$MECH" --net off -- "$PY" -c "$send_udp")
  assert_eq "$(head -1 <<<"$out")" 1 "berth's exit status with a UDP socket as stdin"
  assert_contains "$out" "standard input is a datagram socket of the host's network"
  assert_contains "$out" "[sandbox_unavailable]"
  assert_not_contains "$out" SENT
  out=$(given udp 1 $(as_user_prefix) "$BERTH_BIN" run agent --sandbox="$MECH" --net off -- true)
  assert_contains "$out" "standard output is a datagram socket"
  sleep 0.2
  heard_nothing "$LISTEN_LOG"
  stop_listener

  start_listener tcp
  local fastopen="import socket; socket.socket(fileno=0).sendto(b'x', 0x20000000, ('127.0.0.1', $LISTEN_ADDR)); print('SENT')"
  out=$(given tcp 0 $(as_user_prefix) "$BERTH_BIN" run agent --sandbox="$MECH" --net off -- "$PY" -c "$fastopen")
  assert_eq "$(head -1 <<<"$out")" 1 "berth's exit status with an unconnected TCP socket as stdin"
  assert_contains "$out" "standard input is an unconnected socket"
  # best-effort runs it, and says what it could not enforce.
  out=$(given tcp 0 $(as_user_prefix) "$BERTH_BIN" run agent --sandbox=best-effort --net off -- true)
  assert_eq "$(head -1 <<<"$out")" 0 "best-effort's exit status"
  assert_contains "$out" "not enforced: network: standard input is an unconnected socket"
  heard_nothing "$LISTEN_LOG"
  stop_listener

  # A connected stream (one end of a socket pair) is a channel, not a way out.
  out=$(given pair 0 $(as_user_prefix) "$BERTH_BIN" run agent --sandbox="$MECH" --net off -- true)
  assert_eq "$(head -1 <<<"$out")" 0 "berth's exit status with a connected socket as stdin"
  assert_unchanged "$before"
}
NEEDS_NAMESPACES="--net off" escape_matrix attempt

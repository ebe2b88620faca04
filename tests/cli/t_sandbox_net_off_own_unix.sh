#!/usr/bin/env bash
# --net off cuts the host's unix sockets, not the run's own: inside one sandboxed run, a socket
# pair, a path socket bound in the run's TMPDIR and in its workspace, an abstract socket and
# Python's multiprocessing (forkserver: a listener in a temporary directory) all work, in both
# mechanisms and as an unprivileged user. In the same run, the host's unix listener (a path
# socket bound before the run, like /run/docker.sock or $SSH_AUTH_SOCK) stays unreachable and
# hears nothing.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

own_and_host() {
  cat <<EOF2
import multiprocessing, os, socket, sys
def pair():
    a, b = socket.socketpair(); a.sendall(b"p"); assert b.recv(1) == b"p"
def by_path(directory):
    path = os.path.join(directory, "own.sock")
    s = socket.socket(socket.AF_UNIX); s.bind(path); s.listen(1)
    c = socket.socket(socket.AF_UNIX); c.connect(path)
    a, _ = s.accept(); c.sendall(b"u"); assert a.recv(1) == b"u"
    os.unlink(path)
def abstract():
    name = "\0berth-own-%d" % os.getpid()
    s = socket.socket(socket.AF_UNIX); s.bind(name); s.listen(1)
    c = socket.socket(socket.AF_UNIX); c.connect(name)
def child(conn):
    conn.send(conn.recv() * 2)
def forkserver():
    # (Pool and Lock, which need /dev/shm: t_sandbox_private_shm.sh.)
    ctx = multiprocessing.get_context("forkserver")
    a, b = ctx.Pipe()
    p = ctx.Process(target=child, args=(b,)); p.start()
    a.send(21); assert a.recv() == 42; p.join()
if __name__ == "__main__":
    pair(); print("own socketpair")
    by_path(os.environ["TMPDIR"]); print("own path socket in TMPDIR")
    by_path(os.environ["BERTH_WORKSPACE"]); print("own path socket in the workspace")
    abstract(); print("own abstract socket")
    forkserver(); print("own multiprocessing")
    try:
        s = socket.socket(socket.AF_UNIX); s.settimeout(3); s.connect("$1"); s.sendall(b"secret")
        print("REACHED the host socket"); sys.exit(1)
    except OSError as e:
        print("host socket unreachable:", e.strerror)
EOF2
}

attempt() {
  local before ws
  ws=$(berth path agent)
  start_listener unix
  own_and_host "$LISTEN_ADDR" >"$ws/probe.py"
  [[ $WHO == nobody ]] && chown $NOBODY:$NOBODY "$ws/probe.py"
  before=$(fingerprint)
  ESCAPE_OPTS=(--net off)
  allowed "$PY probe.py"
  ESCAPE_OPTS=()
  local out
  out=$(cat "$TMPDIR/escape.out")
  for what in "own socketpair" "own path socket in TMPDIR" "own path socket in the workspace" \
    "own abstract socket" "own multiprocessing" "host socket unreachable"; do
    assert_contains "$out" "$what"
  done
  sleep 0.1
  heard_nothing "$LISTEN_LOG"
  stop_listener
  assert_unchanged "$before"
}
NEEDS_NAMESPACES="--net off" escape_matrix attempt

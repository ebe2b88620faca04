#!/usr/bin/env bash
# --net off: a unix socket the host binds *after* the run started is as unreachable as one bound
# before (no cover can hide it: berth makes the run's connects and allows a path only where the
# run's own network namespace bound a socket). Tried every way to name it: its absolute path, a
# relative path from its directory, a symlink and a hard link the run made in its own writable
# directories, and a host socket bound inside the run's workspace. Datagram unix sockets (which
# name their destination in every send) are refused; the run's own stream sockets, bound after
# the host's, still work. Both mechanisms, root and an unprivileged user; nothing arrives.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

probe() {
  cat <<'EOF'
import os, socket, sys, time
ws, tmp = os.environ["BERTH_WORKSPACE"], os.environ["TMPDIR"]
open(os.path.join(ws, "started"), "w").close()
go = os.path.join(ws, "go")
for _ in range(200):
    if os.path.exists(go): break
    time.sleep(0.05)
host_sock, host_in_ws = open(go).read().split()
def attempt(label, path, cwd=None):
    here = os.getcwd()
    try:
        if cwd: os.chdir(cwd)
        s = socket.socket(socket.AF_UNIX); s.settimeout(3); s.connect(path); s.sendall(b"secret")
        print("REACHED", label)
    except OSError as e:
        print("refused", label, e.strerror)
    finally:
        os.chdir(here)
attempt("absolute", host_sock)
attempt("relative", os.path.basename(host_sock), os.path.dirname(host_sock))
os.symlink(os.path.dirname(host_sock), os.path.join(tmp, "link"))
attempt("symlink", os.path.join(tmp, "link", os.path.basename(host_sock)))
try:
    os.link(host_sock, os.path.join(tmp, "hard.sock"))
    attempt("hard link", os.path.join(tmp, "hard.sock"))
except OSError as e:
    print("refused hard link", e.strerror)
attempt("in the workspace", host_in_ws)
for label, make in (("datagram", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)),
                    ("datagram pair", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM))):
    try:
        make(); print("MADE", label)
    except OSError as e:
        print("refused", label, e.strerror)
own = os.path.join(tmp, "own.sock")
s = socket.socket(socket.AF_UNIX); s.bind(own); s.listen(1)
c = socket.socket(socket.AF_UNIX); c.connect(own); a, _ = s.accept(); c.sendall(b"o")
assert a.recv(1) == b"o"
print("own socket works")
EOF
}

# A host listener at $1, bound now; what it hears goes to $2.
host_listener() {
  "$PY" - "$1" "$2" <<'PY' &
import os, socket, sys
path, log = sys.argv[1:3]
s = socket.socket(socket.AF_UNIX); s.bind(path); os.chmod(path, 0o777); s.listen(8)
open(log + ".ready", "w").close()
while True:
    c, _ = s.accept()
    with open(log, "a") as f: f.write("connection\n")
PY
  HOST_PIDS+=($!)
  wait_for_file "$2.ready"
}

attempt() {
  local ws before pid status=0 dir=$T/host-$WHO-$MECH
  ws=$(berth path agent)
  mkdir -p "$dir"
  probe >"$ws/probe.py"
  [[ $WHO == nobody ]] && chown $NOBODY:$NOBODY "$ws/probe.py"
  before=$(fingerprint)
  berth run agent --sandbox="$MECH" --net off -- "$PY" probe.py >"$TMPDIR/late.out" 2>"$TMPDIR/late.err" &
  pid=$!
  wait_for_file "$ws/started"
  # Bound after the run started: no cover could know of them.
  HOST_PIDS=()
  host_listener "$dir/late.sock" "$dir/late.log"
  host_listener "$ws/host.sock" "$dir/in-ws.log"
  echo "$dir/late.sock $ws/host.sock" >"$ws/go.tmp"
  mv "$ws/go.tmp" "$ws/go"
  wait "$pid" || status=$?
  kill "${HOST_PIDS[@]}" 2>/dev/null || true
  wait "${HOST_PIDS[@]}" 2>/dev/null || true
  cat "$TMPDIR/late.err" >&2
  assert_eq "$status" 0 "the probe's exit status"
  local out
  out=$(cat "$TMPDIR/late.out")
  for what in absolute relative symlink "hard link" "in the workspace" datagram "datagram pair"; do
    assert_contains "$out" "refused $what"
  done
  assert_not_contains "$out" REACHED
  assert_not_contains "$out" MADE
  assert_contains "$out" "own socket works"
  heard_nothing "$dir/late.log" "$dir/in-ws.log"
  rm -f "$ws/started" "$ws/go" "$ws/host.sock"
  assert_unchanged "$before"
}
NEEDS_NAMESPACES="--net off" escape_matrix attempt

# Where the kernel lacks what the supervisor needs (seccomp user notification, pidfd_getfd,
# openat2, unix sock_diag: Linux < 5.6), the covers still hide the host's sockets bound before
# the run, and the run is told that one bound later would stay reachable.
fallback() {
  local before out
  start_listener unix
  before=$(fingerprint)
  out=$(BERTH_TEST_NO_CONNECT_SUPERVISOR=1 berth run agent --sandbox="$MECH" --net off -- "$PY" -c "
import socket
try:
    s = socket.socket(socket.AF_UNIX); s.settimeout(3); s.connect('$LISTEN_ADDR'); s.sendall(b'x')
    print('REACHED')
except OSError as e:
    print('refused', e.strerror)
" 2>&1)
  stop_listener
  assert_contains "$out" "refused"
  assert_not_contains "$out" "REACHED"
  assert_contains "$out" "a unix socket the host binds after this run started stays reachable"
  heard_nothing "$LISTEN_LOG"
  assert_unchanged "$before"
}
rm -rf "$T"/world-* # (fresh worlds for the second matrix)
SANDBOX_USERS=self NEEDS_NAMESPACES="--net off" escape_matrix fallback

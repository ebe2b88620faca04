#!/usr/bin/env bash
# With --net off, under both mechanisms: socket families no network namespace confines (vsock
# reaches the hypervisor; packet, bluetooth, ...) are refused, and so is io_uring, whose socket
# and connect operations no seccomp filter sees (IORING_OP_SOCKET would make any of them). The
# private loopback still works (the control). With --net on (and unsandboxed) io_uring works.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"
[[ -x $PY ]] || skip "python3 is not installed"

# The probe: prints, per line, what each call gave (ok, or the errno's name).
cat >"$T/probe.py" <<'PY'
import ctypes, errno, socket
libc = ctypes.CDLL(None, use_errno=True)
def name(e): return errno.errorcode.get(e, str(e))
params = ctypes.create_string_buffer(120)
fd = libc.syscall(425, 1, params)  # io_uring_setup(1, &params): 425 on x86-64 and arm64
print("io_uring", "ok" if fd >= 0 else name(ctypes.get_errno()))
for fam, label in ((40, "vsock"), (17, "packet"), (31, "bluetooth")):
    try:
        socket.socket(fam, socket.SOCK_STREAM if fam != 17 else socket.SOCK_RAW).close()
        print(label, "ok")
    except OSError as e:
        print(label, name(e.errno))
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
c = socket.create_connection(s.getsockname()); c.close(); s.close()
print("loopback", "ok")
PY
chmod 644 "$T/probe.py"
host=$("$PY" "$T/probe.py")
[[ $host == "io_uring ok"* ]] || skip "io_uring is not available on this machine: $host"

attempt() {
  cp "$T/probe.py" "$(berth path agent)/probe.py"
  local out
  out=$(berth run agent --sandbox="$MECH" --net off -- "$PY" probe.py)
  assert_contains "$out" "io_uring EACCES"
  assert_contains "$out" "vsock EACCES"
  assert_contains "$out" "packet EACCES"
  assert_contains "$out" "bluetooth EACCES"
  assert_contains "$out" "loopback ok"
  # Not refused with the network on: io_uring is only in the way of --net off.
  out=$(berth run agent --sandbox="$MECH" -- "$PY" probe.py)
  assert_contains "$out" "io_uring ok"
}
escape_matrix attempt

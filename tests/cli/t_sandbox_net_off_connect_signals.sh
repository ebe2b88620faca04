#!/usr/bin/env bash
# --net off: berth makes the run's connects, and they behave as the kernel's own under pressure.
# A signal interrupts a blocking connect (an alarm(2) timeout around a connect to a server whose
# backlog is full returns EINTR after a second, as without the sandbox); a run that cannot get
# berth a thread per connect (RLIMIT_NPROC reached by its own threads) is still answered, and
# --timeout still stops it (berth does not abort).
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

cat >"$T/alarm.py" <<'PY'
import os, signal, socket, tempfile, time
path = os.path.join(tempfile.mkdtemp(), "full.sock")
server = socket.socket(socket.AF_UNIX); server.bind(path); server.listen(0)
waiting = []
for _ in range(3):  # fill the backlog: the next connect blocks until the server accepts
    c = socket.socket(socket.AF_UNIX); c.setblocking(False)
    try: c.connect(path)
    except BlockingIOError: pass
    waiting.append(c)
class Late(Exception): pass
def late(signum, frame): raise Late()
signal.signal(signal.SIGALRM, late)
start = time.monotonic()
signal.alarm(1)
try:
    socket.socket(socket.AF_UNIX).connect(path)
    print("connected")
except Late:
    print("interrupted after %.1f s" % (time.monotonic() - start))
PY
cat >"$T/threads.py" <<'PY'
import os, socket, tempfile, threading, time
path = os.path.join(tempfile.mkdtemp(), "s")
l = socket.socket(socket.AF_UNIX); l.bind(path); l.listen(0)
def c():
    try: socket.socket(socket.AF_UNIX).connect(path)
    except OSError: pass
# Up to the limit: then berth, the same user, cannot start a thread for the last connects.
started = 0
try:
    for _ in range(200):
        threading.Thread(target=c, daemon=True).start(); started += 1
except RuntimeError:
    pass
print("started", started, flush=True)
time.sleep(30)
PY
chmod 644 "$T/alarm.py" "$T/threads.py"

attempt() {
  local out status=0 before
  before=$(fingerprint)
  out=$(berth run agent --sandbox="$MECH" --net off --timeout 20 -- "$PY" "$T/alarm.py")
  assert_contains "$out" "interrupted after 1."

  if [[ $WHO == nobody ]] && command -v prlimit >/dev/null; then
    # Its threads up to the limit of the user's processes, each in a connect berth makes: some
    # answers must be made without a thread of their own.
    out=$(prlimit --nproc=$(($(ps -L -u $NOBODY --no-headers | wc -l) + 80)) "${AS_NOBODY[@]}" "$BERTH_BIN" run agent --sandbox="$MECH" --net off \
      --timeout 3 -- "$PY" "$T/threads.py" 2>&1) || status=$?
    # (Other tests' processes of the same user count too: when the limit left the command no
    # room to start at all, there was nothing to answer; berth must still not abort.)
    assert_not_contains "$out" "terminate called"
    [[ $status != 134 ]] || { echo "berth aborted at the process limit: $out" >&2; return 1; }
    if [[ $out == *"started "* ]]; then
      assert_eq "$status" 124 "berth's exit status (--timeout) at the process limit; output: $out"
    fi
  fi
  # (berth ends the sandboxed session itself, even when the user's processes were at their limit
  # a moment before: git calls it cannot start at once are tried again)
  assert_unchanged "$before" || { echo "the run said: $out" >&2; return 1; }
}
NEEDS_NAMESPACES="--net off" escape_matrix attempt

#!/usr/bin/env bash
# A sandboxed run gets a /dev/shm of its own, under both mechanisms, as root and as an
# unprivileged user, with --net on and --net off: Python's multiprocessing (Pool and Lock: named
# semaphores, sem_open) and shared_memory (shm_open) work inside; the host's /dev/shm is not
# there (a file in it is neither listed nor readable, and writing that name inside changes
# nothing on the host); what the run leaves in its /dev/shm is on the host neither during nor
# after the run, nor in the next run. (Landlock: a tmpfs in the run's own mount namespace; bwrap:
# its fresh /dev.) Only --allow-write /dev/shm gives a run the host's. Nor are the host's SysV
# shared memory segments there (the run's IPC namespace is its own).
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

[[ -d /dev/shm && -w /dev/shm ]] || skip "this machine has no writable /dev/shm"
# The host's shared memory, which no sandboxed run may see: readable and writable by anyone, so
# that only the sandbox stands in the way. Removed however the test ends.
HOST_SHM=/dev/shm/berth-test-host-$$-$RANDOM
INSIDE=berth-test-inside-$$-$RANDOM
# And a SysV shared memory segment of the host, attachable by anyone: SysV IPC is the IPC
# namespace's, which the run has its own of too. (Keys: the host's and the one the run makes.)
HOST_KEY=$((0x42000000 + $$ % 65536 * 256))
INSIDE_KEY=$((HOST_KEY + 1))
# sysv.py KEY FLAGS: shmget(KEY, FLAGS in octal): exit 0, or the errno (ENOENT: 2).
cat >"$T/sysv.py" <<'EOF'
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
key, flags = int(sys.argv[1]), int(sys.argv[2], 8)
if libc.shmget(key, 64 if flags else 0, flags) < 0:
    sys.exit(ctypes.get_errno())
EOF
chmod 644 "$T/sysv.py"
sysv() { "$PY" "$T/sysv.py" "$@"; }
trap 'status=$?; rm -f "$HOST_SHM" /dev/shm/"$INSIDE"*
  ipcrm -M "$HOST_KEY" 2>/dev/null || true; ipcrm -M "$INSIDE_KEY" 2>/dev/null || true; cleanup $status' EXIT
echo "host secret" >"$HOST_SHM"
chmod 666 "$HOST_SHM"
sysv "$HOST_KEY" 1666 # IPC_CREAT | 0666
sysv "$HOST_KEY" 0    # (the control: it is there)

probe() {
  cat <<'EOF'
import multiprocessing, os, sys
from multiprocessing import shared_memory
def square(x):
    return x * x
if __name__ == "__main__":
    host, inside = sys.argv[1:3]
    with multiprocessing.Pool(2) as pool:
        assert pool.map(square, range(5)) == [0, 1, 4, 9, 16]
    print("pool works")
    lock = multiprocessing.Lock()
    with lock:
        pass
    print("lock works")
    shm = shared_memory.SharedMemory(create=True, size=64)
    shm.buf[0] = 42
    other = shared_memory.SharedMemory(name=shm.name)
    assert other.buf[0] == 42
    other.close(); shm.close(); shm.unlink()
    print("shared_memory works")
    name = os.path.basename(host)
    print("host file " + ("LISTED" if name in os.listdir("/dev/shm") else "not listed"))
    try:
        print("host file READ: " + open(host).read().strip())
    except OSError as e:
        print("host file unreadable:", e.strerror)
    with open(host, "w") as f:  # a file of the run's own, whatever the host has
        f.write("from the sandbox\n")
    with open("/dev/shm/" + inside, "w") as f:
        f.write("left by the run\n")
    print("wrote", inside, "leftovers:", sorted(n for n in os.listdir("/dev/shm") if n.startswith("berth-test-")))
EOF
}

attempt() {
  local ws net out
  ws=$(berth path agent)
  probe >"$ws/shm_probe.py"
  [[ $WHO == nobody ]] && chown $NOBODY:$NOBODY "$ws/shm_probe.py"
  for net in on off; do
    ESCAPE_OPTS=(--net "$net")
    allowed "$PY shm_probe.py $HOST_SHM $INSIDE-$net"
    out=$(cat "$TMPDIR/escape.out")
    for what in "pool works" "lock works" "shared_memory works" "host file not listed" \
      "host file unreadable: No such file or directory"; do
      assert_contains "$out" "$what"
    done
    # The run saw only what it made itself: not the host's file, not an earlier run's.
    assert_contains "$out" "leftovers: ['$(basename "$HOST_SHM")', '$INSIDE-$net']"
    # Nothing of it reached the host.
    assert_eq "$(cat "$HOST_SHM")" "host secret" "the host's /dev/shm file"
    [[ ! -e /dev/shm/$INSIDE-$net ]] || { echo "the run's /dev/shm file is on the host" >&2; return 1; }
    # And the next run starts with an empty /dev/shm of its own.
    allowed 'test -z "$(ls -A /dev/shm)"'
    ESCAPE_OPTS=()
  done
  # Nothing in /dev/shm is the host's, not even through an explicit name.
  escape "cat $HOST_SHM"
  # The host's SysV segment is not there; one the run makes stays in the run.
  escape "$PY $T/sysv.py $HOST_KEY 0"
  allowed "$PY $T/sysv.py $INSIDE_KEY 1600"
  not 2 sysv "$INSIDE_KEY" 0 # ENOENT on the host
  # --allow-write /dev/shm asks for the host's: the run then has that one, as asked.
  ESCAPE_OPTS=(--allow-write /dev/shm)
  allowed "cat $HOST_SHM"
  assert_eq "$(cat "$TMPDIR/escape.out")" "host secret" "the host's /dev/shm, allowed"
  ESCAPE_OPTS=()
  # The warning of a run without a private /dev/shm is not given here.
  out=$(berth --json run agent --sandbox="$MECH" -- true)
  assert_eq "$(jq -c '[.warnings[] | select(test("/dev/shm"))]' <<<"$out")" "[]" "warnings"
}
NEEDS_NAMESPACES="a private /dev/shm" escape_matrix attempt

#!/usr/bin/env bash
# A project's own test suite passes in a sandboxed workspace as it does unconfined: a small
# Python project whose unittest suite uses what real suites use — multiprocessing (Pool,
# ProcessPoolExecutor, a Manager, the forkserver and spawn start methods, shared_memory),
# temporary files and directories (a SQLite database in WAL mode, a FIFO, a unix socket), a
# server and its client on the loopback (asyncio, by the name localhost), a UDP round trip, a
# subprocess — under both mechanisms, as root and as an unprivileged user, with --net on and
# --net off. Files the run creates in the workspace are the user's own.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

suite() {
  cat <<'EOF'
import asyncio, concurrent.futures, multiprocessing, os, socket, sqlite3, subprocess, sys
import tempfile, unittest
from multiprocessing import shared_memory

def square(x):
    return x * x

class Suite(unittest.TestCase):
    def test_pool(self):
        with multiprocessing.Pool(2) as pool:
            self.assertEqual(pool.map(square, range(4)), [0, 1, 4, 9])

    def test_process_pool_executor(self):
        with concurrent.futures.ProcessPoolExecutor(2) as ex:
            self.assertEqual(list(ex.map(square, [5, 6])), [25, 36])

    def test_manager(self):
        with multiprocessing.Manager() as manager:
            shared = manager.dict(a=1)
            self.assertEqual(shared["a"], 1)

    def test_start_methods(self):
        for method in ("forkserver", "spawn"):
            with multiprocessing.get_context(method).Pool(1) as pool:
                self.assertEqual(pool.map(square, [3]), [9])

    def test_shared_memory(self):
        shm = shared_memory.SharedMemory(create=True, size=16)
        shm.buf[0] = 7
        shm.close()
        shm.unlink()

    def test_temporary_files(self):
        fd, name = tempfile.mkstemp()
        os.write(fd, b"x")
        os.close(fd)
        os.unlink(name)
        with tempfile.TemporaryDirectory() as d:
            db = sqlite3.connect(os.path.join(d, "t.db"))
            db.execute("pragma journal_mode=wal")
            db.execute("create table t(x)")
            db.commit()
            db.close()
            os.mkfifo(os.path.join(d, "fifo"))
            s = socket.socket(socket.AF_UNIX)
            s.bind(os.path.join(d, "s"))
            s.close()

    def test_loopback_server(self):
        async def main():
            async def echo(reader, writer):
                writer.write(await reader.read(5))
                await writer.drain()
                writer.close()
            server = await asyncio.start_server(echo, "localhost", 0)
            port = server.sockets[0].getsockname()[1]
            reader, writer = await asyncio.open_connection("localhost", port)
            writer.write(b"hello")
            await writer.drain()
            self.assertEqual(await reader.read(5), b"hello")
            writer.close()
            server.close()
        asyncio.run(main())

    def test_udp(self):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", 0))
        s.sendto(b"x", s.getsockname())
        self.assertEqual(s.recv(1), b"x")

    def test_subprocess_and_files_of_its_own(self):
        out = subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True)
        self.assertEqual(out.stdout, b"42\n")
        with open("made-by-the-suite", "w") as f:
            f.write("x")
        self.assertEqual(os.stat("made-by-the-suite").st_uid, os.getuid())

if __name__ == "__main__":
    unittest.main()
EOF
}

attempt() {
  local ws net uid
  ws=$(berth path agent)
  suite >"$ws/test_app.py"
  [[ $WHO == nobody ]] && chown $NOBODY:$NOBODY "$ws/test_app.py"
  uid=$([[ $WHO == nobody ]] && echo $NOBODY || id -u)
  for net in on off; do
    rm -f "$ws/made-by-the-suite"
    ESCAPE_OPTS=(--net "$net")
    allowed "$PY -m unittest -v test_app"
    ESCAPE_OPTS=()
    assert_contains "$(cat "$TMPDIR/escape.err")" "Ran 9 tests"
    assert_eq "$(tail -n 1 "$TMPDIR/escape.err")" "OK" "[$WHO/$MECH/net $net] the suite's verdict"
    # On the host, too, what the run made is the user's (a user namespace maps the user to itself).
    assert_eq "$(stat -c %u "$ws/made-by-the-suite")" "$uid" "owner of a file the run made"
  done
}

# The control: the suite passes unconfined, in the checkout.
make_repo control
suite >test_app.py
out=$("$PY" -m unittest test_app 2>&1) || { echo "$out" >&2; exit 1; }
cd "$T"
NEEDS_NAMESPACES="the suite (multiprocessing: a private /dev/shm; --net off)" escape_matrix attempt

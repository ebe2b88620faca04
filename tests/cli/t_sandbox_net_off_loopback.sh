#!/usr/bin/env bash
# --net off is "no network outside this run", not "no loopback": a local HTTP server and its
# client inside one sandboxed run talk over 127.0.0.1 (a test suite's own server, express's
# supertest), in both mechanisms and as an unprivileged user. The host's loopback stays out of
# reach meanwhile (t_sandbox_net_off_tcp, _udp, _unix).
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

# A server thread and a client in one python: the client fetches a file the server serves.
serve_and_fetch="$PY"' -c "
import http.server, threading, urllib.request, functools, os
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=os.getcwd())
srv = http.server.ThreadingHTTPServer((\"127.0.0.1\", 0), handler)
threading.Thread(target=srv.serve_forever, daemon=True).start()
url = \"http://127.0.0.1:%d/page.txt\" % srv.server_address[1]
body = urllib.request.urlopen(url, timeout=5).read()
assert body == b\"served over loopback\\n\", body
print(\"fetched\", body.decode().strip())
"'

attempt() {
  local before ws
  ws=$(berth path agent)
  echo "served over loopback" >"$ws/page.txt"
  [[ $WHO == nobody ]] && chown $NOBODY:$NOBODY "$ws/page.txt"
  before=$(fingerprint)
  ESCAPE_OPTS=(--net off)
  allowed "$serve_and_fetch"
  assert_contains "$(cat "$TMPDIR/escape.out")" "fetched served over loopback"
  ESCAPE_OPTS=()
  assert_unchanged "$before"
}
NEEDS_NAMESPACES="--net off" escape_matrix attempt

#!/usr/bin/env bash
# --net off while the host's unix sockets come and go (a server bound in a folder of its own,
# stopped and removed a millisecond later, over and over, as test suites and short-lived daemons
# do): every run starts. A socket listed as the run starts may be gone by the time the sandbox is
# built; under bwrap, covering it then failed the run ("Can't mkdir parents for ...: Read-only file
# system", sandbox_unavailable, or exit 1 before the command ran). With berth making the run's
# connects (the supervisor) the covers add nothing and are not made; under Landlock a cover whose
# socket is gone is skipped. And the run still reaches no socket of the host's.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

CHURN_PID=
trap 'status=$?; [[ -n $CHURN_PID ]] && { kill "$CHURN_PID" 2>/dev/null; wait "$CHURN_PID" 2>/dev/null; }
  cleanup $status' EXIT

# A host server that binds $1/sock in a fresh folder $1, listens a millisecond, then removes
# both; again until killed. $1.ready once it has gone round once.
churn() {
  "$PY" - "$1" <<'PY' &
import os, socket, sys, time
folder = sys.argv[1]
first = True
while True:
    os.mkdir(folder)
    s = socket.socket(socket.AF_UNIX)
    s.bind(folder + "/sock")
    s.listen(1)
    time.sleep(0.001)
    os.unlink(folder + "/sock"); os.rmdir(folder); s.close()
    if first:
        open(folder + ".ready", "w").close()
        first = False
PY
  CHURN_PID=$!
  wait_for_file "$1.ready"
}

attempt() {
  local i layers dir=$T/churn-$MECH
  layers=$(berth --json run agent --sandbox="$MECH" --net off -- true | jq -r '.sandbox[]')
  if [[ $layers != *"every connect made by berth"* ]]; then
    echo "[$MECH] no connect supervisor on this kernel: the covers alone guard, skipped" >&2
    return 0
  fi
  churn "$dir"
  ESCAPE_OPTS=(--net off)
  for i in $(seq 12); do
    allowed 'true'
  done
  # The run reaches none of the host's sockets for all that: not the one that comes and goes.
  allowed "$PY -c '
import socket, time
for _ in range(50):
    try:
        s = socket.socket(socket.AF_UNIX); s.connect(\"$dir/sock\"); print(\"REACHED\"); break
    except OSError:
        time.sleep(0.002)
'"
  assert_not_contains "$(cat "$TMPDIR/escape.out")" REACHED
  ESCAPE_OPTS=()
  kill "$CHURN_PID"
  wait "$CHURN_PID" 2>/dev/null || true
  CHURN_PID=
}
SANDBOX_USERS=self NEEDS_NAMESPACES="--net off" escape_matrix attempt

# Helpers of the sandbox behaviour tests (t_sandbox_*.sh), sourced after common.sh:
#
#   . "$(dirname "$0")/common.sh"
#   . "$(dirname "$0")/sandbox_helpers.sh"
#   attempt() {                     # runs once per mechanism and user, in a fresh repo
#     before=$(fingerprint)
#     escape 'echo pwned >"$BERTH_PROJECT/README.md"'
#     assert_unchanged "$before"
#   }
#   escape_matrix attempt
#
# escape_matrix runs the case with each mechanism (landlock, bwrap) and, when the tests run as
# root, also as an unprivileged user (65534: root keeps capabilities that an ordinary user does
# not have). A mechanism the machine lacks is skipped with the reason; when none is available
# the test skips (77).

# A python3 any user can run (a pyenv shim under /root is not reachable by 65534).
PY=/usr/bin/python3
[[ -x $PY ]] || PY=$(command -v python3 || true)

# Each run updates the running workspace's record (its last use): the fingerprint of a matrix
# case leaves that one record out. Every other record, and all the rest, still counts.
eval "common_$(declare -f fingerprint)"
fingerprint() { common_fingerprint "$@" | grep -v ' \./workspaces/agent\.json$'; }

# Who runs berth and git in the current case: "self", or "nobody" (uid 65534).
WHO=self
MECH=landlock
NOBODY=65534

# as_user CMD...: run CMD as that user. (In the background, `as_user` is a subshell: where the
# pid matters, run "${AS_NOBODY[@]}" CMD & instead, which execs.)
AS_NOBODY=(setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups --inh-caps=-all)
as_user() {
  if [[ $WHO == nobody ]]; then
    "${AS_NOBODY[@]}" "$@"
  else
    "$@"
  fi
}
# The prefix that runs a command as the case's user (empty for self).
as_user_prefix() {
  if [[ $WHO == nobody ]]; then printf '%s\n' "${AS_NOBODY[@]}"; fi
}
berth() { json_logged as_user "$BERTH_BIN" "$@"; }
git() { as_user "$(type -P git)" "$@"; }

# A fresh world for one case: HOME, XDG dirs, TMPDIR and the repository app, all owned by the
# user of the case, under $T/world-<who>-<mechanism>; cd into the repository.
new_world() {
  local world=$T/world-$WHO-$MECH
  mkdir -p "$world"
  export HOME=$world/home XDG_DATA_HOME=$world/home/.local/share
  export XDG_CONFIG_HOME=$world/home/.config XDG_CACHE_HOME=$world/home/.cache TMPDIR=$world/tmp
  export GIT_CONFIG_GLOBAL=$HOME/.gitconfig
  mkdir -p "$HOME" "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME" "$TMPDIR"
  cp "$T/home/.gitconfig" "$HOME/.gitconfig"
  WHO=self make_repo "world-$WHO-$MECH/app"
  if [[ $WHO == nobody ]]; then
    chmod 755 "$T"
    chown -R $NOBODY:$NOBODY "$world"
  fi
}

# escape SCRIPT: run SCRIPT (sh) sandboxed in workspace `agent` with the current mechanism. It
# first proves it runs (writes $BERTH_WORKSPACE/.alive), then makes its attempt: the attempt must
# fail. Extra berth options go in ESCAPE_OPTS (e.g. --net off). stdout of SCRIPT goes to
# $TMPDIR/escape.out, stderr to $TMPDIR/escape.err.
ESCAPE_OPTS=()
escape() {
  local script=$1 status=0
  berth run agent --sandbox="$MECH" "${ESCAPE_OPTS[@]}" -- sh -c '
    echo alive >"$BERTH_WORKSPACE/.alive" || exit 90
    if ( '"$script"' ); then exit 91; else exit 0; fi' \
    >"$TMPDIR/escape.out" 2>"$TMPDIR/escape.err" || status=$?
  if [[ $status != 0 ]]; then
    {
      echo "[$WHO/$MECH] attempt: $script"
      case $status in
      90) echo "the sandboxed command could not even write its own workspace" ;;
      91) echo "the attempt SUCCEEDED: the sandbox let it through" ;;
      *) echo "berth exited $status" ;;
      esac
      echo "--- stdout"
      cat "$TMPDIR/escape.out"
      echo "--- stderr"
      cat "$TMPDIR/escape.err"
    } >&2
    return 1
  fi
  [[ $(cat "$(berth path agent)/.alive") == alive ]]
  rm -f "$(berth path agent)/.alive"
}

# allowed SCRIPT: like escape, but SCRIPT must succeed (the control of a matrix case).
allowed() {
  local script=$1 status=0
  berth run agent --sandbox="$MECH" "${ESCAPE_OPTS[@]}" -- sh -c "$script" \
    >"$TMPDIR/escape.out" 2>"$TMPDIR/escape.err" || status=$?
  if [[ $status != 0 ]]; then
    echo "[$WHO/$MECH] expected to succeed (exit $status): $script" >&2
    cat "$TMPDIR/escape.err" >&2
    return 1
  fi
}

# Whether MECH works here (tried in workspace agent); prints why not.
mechanism_available() {
  local out status=0
  out=$(berth --json run agent --sandbox="$MECH" -- true 2>/dev/null) || status=$?
  [[ $status == 0 ]] && return 0
  if [[ $(jq -r '.error.code' <<<"$out" 2>/dev/null) == sandbox_unavailable ]]; then
    jq -r '.error.message' <<<"$out"
    return 1
  fi
  echo "[$WHO/$MECH] the probe failed unexpectedly (exit $status): $out" >&2
  return 2
}

# Whether the kernel gives the case's user the namespaces a run with --net off or a private
# /dev/shm is built on (a network and a mount namespace: root unshares them directly, another user
# inside a user namespace of its own). Where unprivileged user namespaces are disabled (sysctl
# kernel.unprivileged_userns_clone or user.max_user_namespaces, an AppArmor or container policy),
# an unprivileged user has none: prints the kernel's refusal and returns 1. It asks the kernel, not
# berth, so that where the kernel does give them a berth that fails still fails the test.
namespaces_available() {
  command -v unshare >/dev/null || return 0 # (no way to ask: the case runs, and says)
  as_user unshare --net --mount true 2>/dev/null && return 0
  local err
  err=$(as_user unshare --user --net --mount true 2>&1) && return 0
  echo "${err:-unshare failed}"
  return 1
}

# escape_matrix CASE: run CASE (a function) for each mechanism (or only $MECH_ONLY) and user,
# each in a new world with a workspace `agent`, from the main checkout. A test whose cases need
# namespaces (--net off; a private /dev/shm: multiprocessing) sets NEEDS_NAMESPACES to what needs
# them: a case whose user the kernel gives none is not run, and says why (the _no_userns tests
# check what berth does there).
NEEDS_NAMESPACES=
escape_matrix() {
  local case_fn=$1 ran=0 skipped=() who mech why status
  local users=(self)
  [[ $(id -u) == 0 ]] && command -v setpriv >/dev/null && users+=(nobody)
  # BERTH_TEST_SANDBOX_USERS (a list of the users above) runs those users' cases only, for a
  # quick look by hand; no test preset sets it. (common.sh has read it into SANDBOX_USERS.)
  if [[ -n $SANDBOX_USERS ]]; then
    local wanted=" $SANDBOX_USERS " kept=() u
    for u in "${users[@]}"; do [[ $wanted == *" $u "* ]] && kept+=("$u"); done
    ((${#kept[@]})) || kept=("${users[@]}") # (not root: only self can run)
    users=("${kept[@]}")
  fi
  for who in "${users[@]}"; do
    for mech in ${MECH_ONLY:-landlock bwrap}; do
      WHO=$who MECH=$mech
      new_world
      berth new agent >/dev/null
      status=0
      why=$(mechanism_available) || status=$?
      [[ $status == 2 ]] && return 1
      if [[ $status != 0 ]]; then
        skipped+=("$who/$mech: $why")
        continue
      fi
      if [[ -n $NEEDS_NAMESPACES ]] && ! why=$(namespaces_available); then
        skipped+=("$who/$mech: $NEEDS_NAMESPACES needs namespaces of the run's own, which the kernel refuses this user here (unprivileged user namespaces disabled: $why)")
        continue
      fi
      echo "-- $case_fn as $who with $mech" >&2
      assert_eq "$(berth run agent -- id -u)" "$([[ $who == nobody ]] && echo $NOBODY || id -u)" uid
      "$case_fn"
      ran=$((ran + 1))
    done
  done
  WHO=self
  if ((${#skipped[@]})); then
    printf 'not run here: %s\n' "${skipped[@]}" >&2
  fi
  ((ran > 0)) || skip "no case could run here: ${skipped[*]}"
}

# The shared git dir of the repository here.
common_dir() { git rev-parse --path-format=absolute --git-common-dir; }

# Files berth must not leave behind in the shared git dir after a session.
assert_no_leftovers() {
  local common left
  common=$(common_dir)
  left=$(find "$common" \( -name '*.lock' ! -path '*/berth/lock' -o -name 'tmp_obj_*' \
    -o -name 'tmp_pack_*' -o -name 'tmp_idx_*' \) -print)
  if [[ -n $left ]]; then
    printf 'stale files in %s:\n%s\n' "$common" "$left" >&2
    return 1
  fi
  if [[ -n $(find "$common/berth/quarantine" "$common/berth/sessions" -mindepth 1 2>/dev/null) ]]; then
    echo "a quarantine or session record was left:" >&2
    find "$common/berth/quarantine" "$common/berth/sessions" -mindepth 1 >&2
    return 1
  fi
}

# start_listener tcp|udp|unix: a listener on 127.0.0.1 (a free port) or a unix socket path in $T,
# which appends to $LISTEN_LOG whatever reaches it. Sets LISTEN_ADDR (port or path) and
# LISTEN_LOG. Stopped when the test exits (common.sh kills background jobs), or stop_listener.
LISTENER_PID=
start_listener() {
  local kind=$1 ready=$T/listener-ready.$$.$RANDOM
  LISTEN_LOG=$T/listener-$kind-$RANDOM.log
  : >"$LISTEN_LOG"
  chmod 666 "$LISTEN_LOG"
  "$PY" - "$kind" "$ready" "$LISTEN_LOG" "$T/listen-$RANDOM.sock" <<'PY' &
import os, socket, sys
kind, ready, log, path = sys.argv[1:5]
def note(what):
    with open(log, "a") as f:
        f.write(what + "\n")
if kind == "unix":
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    os.chmod(path, 0o777)
    addr = path
elif kind == "udp":
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    addr = str(s.getsockname()[1])
else:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    addr = str(s.getsockname()[1])
if kind != "udp":
    s.listen(8)
with open(ready + ".tmp", "w") as f:
    f.write(addr)
os.rename(ready + ".tmp", ready)
while True:
    if kind == "udp":
        data, _ = s.recvfrom(4096)
        note("datagram " + data.decode(errors="replace"))
    else:
        c, _ = s.accept()
        note("connection")
        data = c.recv(4096)
        note("data " + data.decode(errors="replace"))
        c.sendall(b"hello from the host\n")
        c.close()
PY
  LISTENER_PID=$!
  wait_for_file "$ready"
  LISTEN_ADDR=$(cat "$ready")
}
stop_listener() {
  if [[ -n $LISTENER_PID ]]; then
    kill "$LISTENER_PID" 2>/dev/null || true
    wait "$LISTENER_PID" 2>/dev/null || true
  fi
  LISTENER_PID=
}
# client tcp|udp|unix ADDR: the command a sandboxed shell runs to send "secret" there (exit 0 if
# it was sent).
client() {
  local kind=$1 addr=$2
  case $kind in
  tcp) echo "$PY"' -c "import socket; s=socket.create_connection((\"127.0.0.1\", '"$addr"'), 3); s.sendall(b\"secret\"); print(s.recv(100).decode())"' ;;
  udp) echo "$PY"' -c "import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b\"secret\", (\"127.0.0.1\", '"$addr"'))"' ;;
  unix) echo "$PY"' -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"'"$addr"'\"); s.sendall(b\"secret\"); print(s.recv(100).decode())"' ;;
  esac
}

# net_off_attempt KIND: with --net off, a sandboxed client cannot reach a KIND (tcp, udp, unix)
# listener on the host: the listener is first shown to work without the sandbox, then hears
# nothing from inside it.
net_off_attempt() {
  local kind=$1 i
  start_listener "$kind"
  sh -c "$(client "$kind" "$LISTEN_ADDR")" >/dev/null
  for ((i = 0; i < 100; i++)); do
    [[ -s $LISTEN_LOG ]] && break
    sleep 0.05
  done
  [[ -s $LISTEN_LOG ]] || { echo "the $kind listener heard nothing from the control" >&2; return 1; }
  : >"$LISTEN_LOG"
  ESCAPE_OPTS=(--net off)
  if [[ $kind == udp ]]; then
    # Both mechanisms give the command a network namespace of its own: its datagram may be
    # "sent", to its own loopback; what matters is that none reaches the host.
    allowed "$(client udp "$LISTEN_ADDR") || true"
  else
    escape "$(client "$kind" "$LISTEN_ADDR")" # unreachable (TCP: another namespace; unix: covered)
  fi
  ESCAPE_OPTS=()
  sleep 0.2
  heard_nothing "$LISTEN_LOG"
  stop_listener
}

# heard_nothing LOG...: each listener log is empty (nothing from the sandbox reached it).
heard_nothing() {
  local log
  for log; do
    if [[ -s $log ]]; then
      echo "a host listener heard from the sandbox ($log):" >&2
      cat "$log" >&2
      return 1
    fi
  done
}

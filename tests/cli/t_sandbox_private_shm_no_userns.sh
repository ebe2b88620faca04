#!/usr/bin/env bash
# Where no mount namespace can be had (user namespaces disabled, no CAP_SYS_ADMIN: a locked-down
# container), a Landlock run has no private /dev/shm. It still runs — a private /dev/shm widens
# what the run may write, it confines nothing, so its absence is no reason to refuse even without
# best-effort — with the host's /dev/shm read-only and its files unreadable (other programs'
# shared memory), and says so once: one warning, in the text and in the JSON result. The kernel
# refusal is real: berth runs inside bwrap --unshare-user --disable-userns --cap-drop ALL.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

BWRAP=$(command -v bwrap) || skip "bwrap is not installed"
[[ -d /dev/shm && -w /dev/shm ]] || skip "this machine has no writable /dev/shm"
REAL_BERTH=$BERTH_BIN
NO_USERNS=(--dev-bind / / --unshare-user --disable-userns --cap-drop ALL --)
"$BWRAP" "${NO_USERNS[@]}" true 2>/dev/null || skip "bwrap cannot build the no-user-namespace world"
BERTH_BIN=$T/berth-no-userns
printf '#!/bin/sh\nexec %q %s %q "$@"\n' "$BWRAP" "${NO_USERNS[*]}" "$REAL_BERTH" >"$BERTH_BIN"
chmod 755 "$BERTH_BIN"

HOST_SHM=/dev/shm/berth-test-host-$$-$RANDOM
trap 'status=$?; rm -f "$HOST_SHM" /dev/shm/berth-test-new-$$; cleanup $status' EXIT
echo "host secret" >"$HOST_SHM"
chmod 666 "$HOST_SHM"

WARNING="/dev/shm is the host's in this run, read-only, its files unreadable"

# The warning is there once in what berth printed ($1) and its JSON result ($2, may be "").
warned_once() {
  assert_eq "$(grep -c "$WARNING" <<<"$1" || true)" 1 "warnings about /dev/shm in the text"
  if [[ -n $2 ]]; then
    assert_eq "$(jq --arg w "$WARNING" '[.warnings[] | select(contains($w))] | length' <<<"$2")" 1 \
      "warnings about /dev/shm in the JSON"
    assert_contains "$(jq -r '.sandbox[]' <<<"$2")" "landlock: the host's /dev/shm unreadable"
  fi
}

# in_mode MECHANISM [OPTION...]: the run is confined as said, and warns once.
in_mode() {
  local out
  MECH=$1
  shift
  ESCAPE_OPTS=("$@")
  escape "cat $HOST_SHM"
  warned_once "$(cat "$TMPDIR/escape.err")" ""
  escape "echo pwned >$HOST_SHM"
  escape "echo new >/dev/shm/berth-test-new-$$"
  # What the warning says breaks, breaks (and says why).
  escape "$PY -c 'import multiprocessing; multiprocessing.Lock()'"
  assert_contains "$(cat "$TMPDIR/escape.err")" "PermissionError"
  out=$(berth --json run agent --sandbox="$MECH" "${ESCAPE_OPTS[@]}" -- true 2>"$TMPDIR/run.err")
  warned_once "$(cat "$TMPDIR/run.err")" "$out"
  assert_eq "$(jq -r .exit_status <<<"$out")" 0 "exit status"
  MECH=landlock ESCAPE_OPTS=()
}

attempt() {
  # The world is what it claims: the kernel refuses a mount namespace there.
  not 1 as_user "$BWRAP" "${NO_USERNS[@]}" unshare -m true
  not 1 as_user "$BWRAP" "${NO_USERNS[@]}" unshare -U true
  in_mode landlock # strict, and it runs (--net off is refused: t_sandbox_net_off_no_userns)
  in_mode best-effort --net off
  assert_eq "$(cat "$HOST_SHM")" "host secret" "the host's /dev/shm file"
  [[ ! -e /dev/shm/berth-test-new-$$ ]]
}
MECH_ONLY=landlock escape_matrix attempt

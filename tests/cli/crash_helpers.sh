# Shared by the crash tests of accept and doctor: kill an accept half-way through writing into
# the user's checkout. Source after common.sh, in a repository whose changed files are c/*.txt
# (20 of them, each "new ..." in the workspace) behind a slow smudge filter.

# The intent record accept writes before touching the checkout.
intent=$(git rev-parse --path-format=absolute --git-common-dir)/berth/intents/main.json

# How many of the 20 files already hold their new content.
written() { grep -l '^new' c/*.txt 2>/dev/null | wc -l; }

# crash_accept_midway ACCEPT-ARGS...: start `berth accept ARGS` in its own session, kill -9 the
# whole session (with CRASH_KILL=alone: berth alone, its git children then end on their own)
# once the intent is recorded and some files are written, and check that it really was caught
# mid-way.
crash_accept_midway() {
  setsid "$BERTH_BIN" accept "$@" >"$T/accept.out" 2>&1 &
  local pid=$! n
  for ((n = 0; n < 400; n++)); do
    [[ -e $intent && $(written) -ge 4 ]] && break
    sleep 0.02
  done
  {
    if [[ ${CRASH_KILL:-group} == alone ]]; then kill -9 "$pid"; else kill -9 -- -"$pid"; fi
    wait "$pid" || true
  } 2>/dev/null
  n=$(written)
  # Then no git of the dead accept may still be writing (its read-tree may outlive it).
  local i
  for ((i = 0; i < 100; i++)); do
    pgrep -x -s "$pid" git >/dev/null || break
    sleep 0.05
  done
  ((n >= 4 && n < 20)) || { echo "not mid-way: $n files written" >&2; return 1; }
}

# Helpers of the warm-pool behaviour tests (t_pool_*.sh), sourced after common.sh:
#
#   . "$(dirname "$0")/common.sh"
#   . "$(dirname "$0")/pool_helpers.sh"
#   make_repo app 200
#   export BERTH_POOL_SIZE=2
#   berth pool fill >/dev/null       # foreground: the slots are ready when it returns
#   ...
#   pool_quiesce                     # at the end: drain, and no filler left running
#
# `berth new` and `berth discard` start a detached `berth pool fill --background`; it is not a
# job of the test's shell, so common.sh's clean-up does not see it. These helpers wait for it,
# and on exit kill (by pid) any filler of this test's repositories that is still there.

# The pids of `pool fill --background` processes working on a repository under $T.
pool_fillers() {
  pgrep -f -- "-C $T/.* pool fill --background" || true
}

# Wait (up to 60 s) until no background filler of this test is left.
wait_for_fillers() {
  local i
  for ((i = 0; i < 1200; i++)); do
    [[ -z $(pool_fillers) ]] && return 0
    sleep 0.05
  done
  echo "a background pool filler is still running after 60 s" >&2
  return 1
}

# Drain the pool of the repository here and wait for every filler: the test leaves nothing behind.
pool_quiesce() {
  wait_for_fillers
  berth pool drain >/dev/null
  wait_for_fillers
}

# The seconds of the index's mtime, and whether every entry's mtime is strictly older: a
# "settled" index, where no entry is racily clean.
assert_index_settled() {
  local ws=$1 index_time newest
  index_time=$(stat -c %Y "$(git -C "$ws" rev-parse --git-path index)")
  newest=$(git -C "$ws" ls-files --debug | sed -n 's/^  mtime: \([0-9]*\):.*/\1/p' | sort -n | tail -1)
  if ((newest >= index_time)); then
    echo "index of $ws is not settled: an entry has mtime $newest, the index $index_time" >&2
    return 1
  fi
}

# The slot lock reason, exactly as pool.cpp writes it.
SLOT_REASON='berth: pool slot (remove with `berth pool drain`)'

# lock_reason WS: the reason git records for the worktree at WS.
lock_reason() {
  local admin
  admin=$(git -C "$1" rev-parse --absolute-git-dir)
  cat "$admin/locked"
}

# Safety net: a failing test still leaves no filler running, then common.sh's clean-up runs with
# the test's status (a trap stops at its first failing command: nothing here may fail).
_pool_exit() {
  local pid
  for pid in $(pool_fillers); do kill -9 "$pid" 2>/dev/null || true; done
}
trap '_pool_status=$?; _pool_exit; cleanup "$_pool_status"' EXIT

# fingerprint | without_pool: the fingerprint without the pool's slots and records (a failed
# `new` or `restore` may use up a slot: the pool is a cache).
without_pool() {
  { grep -v -e '/\.pool/' -e ' \./pool/' -e '^locked berth: pool slot' -e '^detached$' -e '^HEAD ' ||
    true; } | cat -s
}

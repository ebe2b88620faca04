#!/usr/bin/env bash
# berth is killed (kill -9, its whole process group) during a sandboxed run that has committed:
# HEAD is left detached and the commit is only in the quarantine. The next berth command
# finishes the session: the commit lands on berth/NAME, HEAD is re-attached, the command left
# running is stopped, `git fsck` is clean and nothing is left behind.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

attempt() {
  local ws gitdir base pid marker=$((900000 + RANDOM))
  ws=$(berth path agent)
  gitdir=$(git -C "$ws" rev-parse --absolute-git-dir)
  base=$(git rev-parse HEAD)
  # Its own process group (setsid), so that the kill takes berth and only berth's group. (Not
  # through the as_user function: in the background that would be a subshell, with its own pid.)
  local prefix
  mapfile -t prefix < <(as_user_prefix)
  "${prefix[@]}" setsid "$BERTH_BIN" run agent --sandbox="$MECH" -- sh -c "
    echo one >one.txt && git add one.txt && git commit -q -m 'made inside' &&
    touch .committed && exec sleep $marker" </dev/null >/dev/null 2>&1 &
  pid=$!
  wait_for_file "$ws/.committed"
  kill -9 -- "-$pid"
  wait "$pid" 2>/dev/null || true
  # What the crash left: HEAD detached at the new commit, the branch where it was.
  [[ $(cat "$gitdir/HEAD") != ref:* ]]
  assert_eq "$(git rev-parse berth/agent)" "$base" "branch before recovery"

  berth list >/dev/null
  assert_eq "$(git log -1 --format=%s berth/agent)" "made inside" "commit on the branch"
  assert_eq "$(git rev-parse berth/agent~1)" "$base" "parent"
  assert_eq "$(git -C "$ws" symbolic-ref HEAD)" refs/heads/berth/agent "HEAD"
  GIT_ALTERNATE_OBJECT_DIRECTORIES= git cat-file -e berth/agent:one.txt
  git fsck --no-progress --strict --no-dangling
  assert_no_leftovers
  if pgrep -f "sleep $marker" >/dev/null; then
    echo "the sandboxed command outlived the recovery" >&2
    return 1
  fi
  assert_eq "$(berth --json status agent | jq -r .state)" ready "state"
  # And the workspace works again, sandboxed too.
  berth run agent --sandbox="$MECH" -- sh -c 'echo two >two.txt && git add two.txt && git commit -q -m two'
  assert_eq "$(git log -1 --format=%s berth/agent)" two "next run"
}
escape_matrix attempt

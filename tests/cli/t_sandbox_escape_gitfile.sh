#!/usr/bin/env bash
# The workspace's gitfile (.git) and its admin dir's commondir are writable in the sandbox. A
# forged one pointing at a repository the command made (whose config runs its code) is put back
# when the run ends: berth's status/diff/commit/discard, and the user's git, run nothing of it.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

attempt() {
  local ws gitdir marker=$T/pwned-$WHO-$MECH
  ws=$(berth path agent)
  gitdir=$(git -C "$ws" rev-parse --absolute-git-dir)
  cp "$ws/.git" "$TMPDIR/gitfile.before"
  cp "$gitdir/commondir" "$TMPDIR/commondir.before"
  # Outside the sandbox, the planted code could write the marker.
  [[ $WHO == nobody ]] && chmod 777 "$T"

  # A repository of the command's own whose config and hooks run its code; both the gitfile
  # and commondir point there.
  allowed 'gd=$(git rev-parse --absolute-git-dir) && git init -q --bare evil.git &&
    printf "#!/bin/sh\ntouch '"$marker"'\n" >evil.git/fsmon && chmod +x evil.git/fsmon &&
    git config -f evil.git/config core.fsmonitor "$PWD/evil.git/fsmon" &&
    git config -f evil.git/config core.bare false &&
    git config -f evil.git/config core.worktree "$PWD" &&
    mkdir -p evil.git/hooks && cp evil.git/fsmon evil.git/hooks/pre-commit &&
    cp evil.git/fsmon evil.git/hooks/post-commit &&
    echo "$PWD/evil.git" >"$gd/commondir" && echo "gitdir: $PWD/evil.git" >.git'
  cmp "$ws/.git" "$TMPDIR/gitfile.before"
  cmp "$gitdir/commondir" "$TMPDIR/commondir.before"
  assert_contains "$(cat "$TMPDIR/escape.err")" "berth put it back"

  # A gitfile replaced by a directory (a whole repository in place of .git).
  allowed 'rm .git && git init -q . && git config core.fsmonitor "$PWD/evil.git/fsmon"'
  cmp "$ws/.git" "$TMPDIR/gitfile.before"

  berth status agent >/dev/null
  berth diff agent >/dev/null
  berth list >/dev/null
  berth commit agent -m "the agent's files" >/dev/null
  git -C "$ws" status >/dev/null
  berth discard agent >/dev/null
  if [[ -e $marker ]]; then
    echo "code the sandboxed command wrote ran outside the sandbox" >&2
    return 1
  fi
}
escape_matrix attempt

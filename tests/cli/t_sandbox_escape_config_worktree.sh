#!/usr/bin/env bash
# The workspace's own git files are writable in the sandbox, but git trusts them: a
# config.worktree (where the user enabled extensions.worktreeConfig) setting core.fsmonitor or
# core.hooksPath would run the command's code in berth's or the user's next git call. berth puts
# them back when the run ends: its later status/diff/commit/discard and the user's git run
# nothing the command wrote.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

attempt() {
  local ws gitdir marker=$T/pwned-$WHO-$MECH
  git config extensions.worktreeConfig true
  ws=$(berth path agent)
  gitdir=$(git -C "$ws" rev-parse --absolute-git-dir)
  # Outside the sandbox, the planted code could write the marker.
  [[ $WHO == nobody ]] && chmod 777 "$T"

  allowed 'mkdir -p .hooks && printf "#!/bin/sh\ntouch '"$marker"'\n" >.hooks/post-commit &&
    cp .hooks/post-commit .hooks/pre-commit && cp .hooks/post-commit fsmon &&
    chmod +x .hooks/* fsmon &&
    git config --worktree core.fsmonitor "$BERTH_WORKSPACE/fsmon" &&
    git config --worktree core.hooksPath "$BERTH_WORKSPACE/.hooks" &&
    git config --worktree core.pager "$BERTH_WORKSPACE/fsmon" &&
    echo "gitdir: /nonexistent" >"$(git rev-parse --git-dir)/gitdir"'
  assert_contains "$(cat "$TMPDIR/escape.err")" "berth put it back"
  # Put back when the run ended.
  not 1 git -C "$ws" config --worktree --get core.fsmonitor
  not 1 git -C "$ws" config --worktree --get core.hooksPath
  [[ $(cat "$gitdir/gitdir") == "$ws/.git" ]]

  berth status agent >/dev/null
  berth diff agent >/dev/null
  berth list >/dev/null
  berth commit agent -m "the agent's hooks" >/dev/null
  git -C "$ws" status >/dev/null
  berth discard agent >/dev/null
  if [[ -e $marker ]]; then
    echo "code the sandboxed command wrote ran outside the sandbox" >&2
    return 1
  fi
}
escape_matrix attempt

#!/usr/bin/env bash
# A sandboxed command can write its worktree's admin dir (git must): it replaces HEAD, its reflog
# and the index with FIFOs, on which git (berth's, and the user's `git gc`) would wait forever.
# When the run ends berth moves them aside and says so; the run returns, the branch is where it
# was, and every later command answers.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"
# berth and git as the case's user, bounded: a regression fails here instead of hanging.
bounded() { json_logged as_user timeout 20 "$BERTH_BIN" "$@"; }
bounded_git() { as_user timeout 20 "$(type -P git)" "$@"; }

attempt() {
  local ws admin tip
  ws=$(berth path agent)
  admin=$(git -C "$ws" rev-parse --absolute-git-dir)
  tip=$(git rev-parse refs/heads/berth/agent)
  bounded run agent --sandbox="$MECH" -- sh -c 'echo work >w.txt &&
    d=$(git rev-parse --absolute-git-dir) &&
    for f in HEAD logs/HEAD index; do rm -f "$d/$f" && mkfifo "$d/$f" || exit 1; done' \
    2>"$TMPDIR/escape.err"
  assert_contains "$(cat "$TMPDIR/escape.err")" "moved aside"
  [[ -f $admin/HEAD && -f $admin/index && ! -p $admin/logs/HEAD ]]
  bounded_git gc -q
  assert_eq "$(bounded --json status agent | jq -r '.state + " " + .head')" \
    "ready $tip" "status after the run"
  assert_contains "$(bounded diff agent --name-only)" w.txt
  bounded discard agent >/dev/null
}
escape_matrix attempt

#!/usr/bin/env bash
# A sandboxed command cannot write another workspace: its files, its index, its HEAD (its
# worktree admin dir), nor discard or lock it.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

attempt() {
  local before other other_gitdir
  berth new other >/dev/null
  other=$(berth path other)
  echo "other's work" >"$other/wip.txt"
  other_gitdir=$(git -C "$other" rev-parse --absolute-git-dir)
  [[ $WHO == nobody ]] && chown -R $NOBODY:$NOBODY "$other"
  before=$(fingerprint)
  local digest head
  digest=$(tree_digest "$other")
  head=$(cat "$other_gitdir/HEAD")
  export OTHER=$other OTHER_GITDIR=$other_gitdir
  ESCAPE_OPTS=(--env "OTHER=$other" --env "OTHER_GITDIR=$other_gitdir")
  escape 'echo pwned >"$OTHER/README.md"'
  escape 'echo pwned >>"$OTHER/wip.txt"'
  escape 'rm "$OTHER/wip.txt"'
  escape 'echo pwned >"$OTHER/new.txt"'
  escape 'git -C "$OTHER" add wip.txt'
  escape 'git -C "$OTHER" commit -q --allow-empty -m evil'
  escape 'echo "ref: refs/heads/main" >"$OTHER_GITDIR/HEAD"'
  escape ': >"$OTHER_GITDIR/index"'
  escape 'echo "[core] fsmonitor = touch pwned" >"$OTHER_GITDIR/config.worktree"'
  escape 'echo "gitdir: /tmp" >"$OTHER/.git"'
  escape 'git worktree lock "$OTHER"'
  escape 'git worktree remove --force "$OTHER"'
  ESCAPE_OPTS=()
  [[ $(tree_digest "$other") == "$digest" ]]
  [[ $(cat "$other_gitdir/HEAD") == "$head" ]]
  test ! -e "$other_gitdir/config.worktree"
  [[ $(cat "$other/wip.txt") == "other's work" ]]
  assert_unchanged "$before"
}
escape_matrix attempt

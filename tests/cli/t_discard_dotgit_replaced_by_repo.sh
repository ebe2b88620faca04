# An agent replaced the workspace's .git file with a repository of its own (`rm .git; git init`).
# discard still saves the work (berth never trusted that .git), deletes the tree and git's record
# of the worktree (git itself refuses to remove such a worktree), and the name can be restored.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app

replace_dotgit() { # NAME: a workspace with work and its own repository at its top
  local ws
  ws=$(berth new "$1" 2>/dev/null)
  echo "work of $1" >"$ws/work.txt"
  rm "$ws/.git"
  git init -q "$ws"
}
check_gone_and_back() { # NAME
  assert_eq "$(berth --json list | jq length)" 0 "workspaces"
  git worktree prune
  assert_eq "$(git worktree list --porcelain | grep -c -e '/\.trash/' -e "/$1\$" || true)" 0 \
    "worktree entries of the discarded tree"
  assert_eq "$(find "$ROOT/.trash" -mindepth 1 2>/dev/null | wc -l)" 0 "trees left in the trash"
  ws=$(berth restore "$1")
  assert_eq "$(cat "$ws/work.txt")" "work of $1"
  berth discard "$1" >/dev/null 2>&1
}
ROOT=$(dirname "$(berth new probe)") # the workspace root
berth discard probe >/dev/null 2>&1

replace_dotgit solo
berth discard solo >/dev/null 2>"$TMPDIR/err"
assert_not_contains "$(cat "$TMPDIR/err")" "remove it by hand"
check_gone_and_back solo

export BERTH_POOL_SIZE=1
berth pool fill >/dev/null
replace_dotgit pooled
wait_for_fillers
berth discard pooled >/dev/null 2>&1
wait_for_fillers
check_gone_and_back pooled
pool_quiesce

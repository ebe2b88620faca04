# Helpers of the hostile-file tests (t_hostile_*.sh), sourced after common.sh.

# berth, bounded: a regression fails the test instead of hanging the suite.
bounded() { json_logged timeout 20 "$BERTH_BIN" "$@"; }

# two_workspaces_one_fifo NAME FILE: a repository with workspaces x and y; NAME's w.txt holds
# "work" and FILE of its admin dir is replaced by a FIFO. Sets ws and admin (NAME's).
two_workspaces_one_fifo() {
  make_repo app
  berth new x >/dev/null
  berth new y >/dev/null
  ws=$(berth path "$1")
  (cd "$ws" && commit_file c.txt committed) # one commit of the agent's
  echo work >"$ws/w.txt"
  admin=$(git -C "$ws" rev-parse --absolute-git-dir)
  rm "$admin/$2"
  mkfifo "$admin/$2"
}

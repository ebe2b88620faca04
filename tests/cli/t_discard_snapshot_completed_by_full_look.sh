# The watcher cannot see every change: a tracked file edited through a hard link from outside the
# workspace has no event in it. discard's quick snapshot then misses the edit, but the tree is
# never deleted before a full look: the snapshot is completed first (same parents, same message),
# whether the tree is deleted in the background (warm pool) or by discard itself.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app

edit_from_outside() { # NAME: a workspace whose README.md changes behind the watcher's back
  local ws
  ws=$(berth new "$1" 2>/dev/null)
  echo "seen" >"$ws/seen.txt"
  berth list >/dev/null && berth list >/dev/null # the watcher follows it; the verdict is cached
  ln "$ws/README.md" "$T/link-$1"
  echo "edited through a hard link" >>"$T/link-$1"
  # The watcher saw nothing: list still shows only seen.txt.
  assert_eq "$(berth --json status "$1" | jq -c '[.changes.modified, .changes.untracked]')" "[0,1]"
}
check_saved() { # NAME
  local ref
  ref=$(git for-each-ref --format='%(refname)' "refs/berth/trash/$1/")
  assert_contains "$(git show "$ref:README.md")" "edited through a hard link"
  assert_eq "$(git show "$ref:seen.txt")" seen
  assert_eq "$(git log -1 --format=%s "$ref")" "berth trash: $1"
  assert_eq "$(git rev-parse "$ref^1")" "$(git rev-parse main)"
  # restore brings the edit back
  ws=$(berth restore "$1")
  assert_contains "$(cat "$ws/README.md")" "edited through a hard link"
}

# Deleted by discard itself (no pool).
edit_from_outside solo
berth discard solo >/dev/null 2>&1
check_saved solo

# Deleted in the background (warm pool).
export BERTH_POOL_SIZE=1
berth pool fill >/dev/null
edit_from_outside pooled
wait_for_fillers
berth discard pooled >/dev/null 2>&1
wait_for_fillers
check_saved pooled
pool_quiesce

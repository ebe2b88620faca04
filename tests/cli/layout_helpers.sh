# Helpers of the repository-layout tests (separate git dir, `.git` symlink, sha256), sourced after
# common.sh and pool_helpers.sh.

# first_commit_here: README.md and src/main.c committed in the fresh repository here.
first_commit_here() {
  mkdir src
  echo "# app" >README.md
  echo 'int main(void) { return 0; }' >src/main.c
  git add -A
  git commit -qm first
}

# lifecycle_here: the whole life of workspaces in the repository whose work tree is here (one
# commit with README.md and src/main.c): new, list, diff, commit, sync, accept into the branch
# (merge) and into the tree (apply), discard, restore, pool fill and take, doctor. The project is
# named after its work tree. Leaves the pool drained and no workspace.
lifecycle_here() {
  local tree project ws
  tree=$(pwd)
  project=$(basename "$tree")

  ws=$(berth new a)
  # Named after the work tree, not the git dir.
  assert_contains "$(basename "$(dirname "$ws")")" "$project-"
  assert_contains "$(berth --json list | jq -r '.[].path')" "/$project-"
  echo edit >>"$ws/README.md"
  echo new >"$ws/added.txt"
  rm "$ws/src/main.c"
  assert_eq "$(berth diff a --name-only | LC_ALL=C sort | tr '\n' ' ')" "README.md added.txt src/main.c "
  berth commit a -m "work of a" >/dev/null
  # The user's branch moves on; sync brings it in.
  commit_file user.txt mine
  berth sync a >/dev/null
  # Into the branch: the user's HEAD moves, their tree follows.
  berth accept a --strategy merge >/dev/null
  [[ -f added.txt && ! -e src/main.c ]]
  assert_contains "$(git log -1 --format=%s)" "a"
  [[ -z $(git status --porcelain) ]]
  [[ -z $(berth --json list | jq -r '.[].name') ]]

  # Into the tree: staged, the user commits.
  ws=$(berth new b)
  echo more >>"$ws/added.txt"
  berth accept b >/dev/null
  assert_eq "$(git diff --cached --name-only)" added.txt
  git commit -qm "b landed"

  # Discard and restore, with an untracked file and a deletion.
  ws=$(berth new c)
  echo untracked >"$ws/u.txt"
  rm "$ws/README.md"
  local before
  before=$(tree_digest "$ws")
  berth discard c >/dev/null
  [[ ! -e $ws ]]
  ws=$(berth restore c)
  assert_eq "$(tree_digest "$ws")" "$before"
  berth discard c >/dev/null

  # The warm pool: filled, taken, accepted (whose discard recycles the slot).
  BERTH_POOL_SIZE=1 berth pool fill >/dev/null
  wait_for_fillers
  assert_eq "$(BERTH_POOL_SIZE=1 berth --json pool status | jq .ready)" 1
  ws=$(BERTH_POOL_SIZE=1 berth new d)
  echo pooled >"$ws/pooled.txt"
  BERTH_POOL_SIZE=1 berth accept d >/dev/null
  assert_eq "$(git diff --cached --name-only)" pooled.txt
  git commit -qm "d landed"
  wait_for_fillers
  BERTH_POOL_SIZE=1 berth pool drain >/dev/null
  wait_for_fillers

  berth doctor >/dev/null
  assert_eq "$(berth --json doctor | jq '.problems | length')" 0
}

# A discard whose workspace was looked at before (a `berth list`: its verdict kept) and then
# changed file by file takes its snapshot from the watcher's paths alone: no `git status`, only
# the changed paths staged, and those that are new to the tree asked of the ignore rules (one
# `check-ignore`). That snapshot must be the very one a full walk takes (-c
# watch.enabled=false) for every kind of file-level change, and `restore` must bring it back.
# What the watcher's paths cannot tell (a folder made, an ignore file changed, a file in a nested
# repository) is left to git's status, and must be right too.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/watch_helpers.sh"
make_repo app
file_level_repo

# snapshot NAME CONFIG...: both rounds in a new workspace NAME, then its discard with CONFIG.
snapshot() {
  local name=$1
  shift
  local ws
  ws=$(berth "$@" new "$name")
  (
    cd "$ws"
    round_one
    berth "$@" list >/dev/null
    round_two
  )
  if [[ $name == watched ]]; then
    ws_watched=$ws
    status_before=$(GIT_OPTIONAL_LOCKS=0 git -C "$ws" status --porcelain=v2 --untracked-files=all)
    digest_before=$(digest_unignored "$ws")
  fi
  GIT_TRACE=$T/$name.trace berth "$@" discard "$name" >/dev/null 2>&1
  [[ ! -e $ws ]]
}

snapshot watched
snapshot plain -c watch.enabled=false

# The watched one took the watcher's way: no status of its own before the snapshot (the one
# status in it is the full look that checks the snapshot before the tree is deleted, pool.size
# = 0 here, which has no --branch), one check-ignore for the new paths.
assert_not_contains "$(cat "$T/watched.trace")" "status --porcelain=v2 -z --branch"
assert_contains "$(cat "$T/watched.trace")" "check-ignore --no-index -z --stdin"
assert_not_contains "$(cat "$T/watched.trace")" "completed by a full look"

w=$(git for-each-ref --format='%(refname)' refs/berth/trash/watched/)
p=$(git for-each-ref --format='%(refname)' refs/berth/trash/plain/)
assert_same_snapshot "$w" "$p"

# The snapshot itself is right (not merely the same twice).
tree=$(git ls-tree -r --name-only -z "$w" | tr '\0' '|')
for kept in README.md src/main.c docs/guide.md ita.txt reverted.txt early.txt src/lib/new.c \
  "with space.txt" "ünïcødé ✓.txt" "tab	name.txt" empty.txt newlink GUIDE keep.log; do
  assert_contains "|$tree" "|$kept|"
done
for gone in gone.txt new.log build/out.o build/out2.o node_modules/pkg/i.js node_modules/pkg/j.js \
  brief.txt; do
  assert_not_contains "|$tree" "|$gone|"
done
assert_eq "$(git cat-file -p "$w:docs/guide.md" | tail -2 | tr '\n' ,)" "staged,then modified again,"
assert_eq "$(git cat-file -p "$w^2:docs/guide.md" | tail -1)" staged
assert_eq "$(git cat-file -p "$w:reverted.txt")" "back again"
assert_eq "$(git cat-file -p "$w:early.txt" | tr '\n' ,)" "untracked then,and now,"
assert_eq "$(git cat-file -p "$w:GUIDE")" src/main.c
assert_eq "$(git ls-tree "$w" src/lib/util.c | cut -c1-6)$(git ls-tree "$w" bin/run.sh | cut -c1-6)" \
  100755100644 "exec bits"

# restore brings it back: every file but the ignored ones, and the same status (an
# intent-to-add entry comes back as what the index commit can hold: an untracked file).
restored=$(berth restore watched)
assert_eq "$restored" "$ws_watched"
assert_eq "$(digest_unignored "$restored")" "$digest_before" "files after restore"
status_after=$(GIT_OPTIONAL_LOCKS=0 git -C "$restored" status --porcelain=v2 --untracked-files=all |
  LC_ALL=C sort)
status_before=$(sed 's/^1 \.A N\.\.\. 000000 000000 100644 0\{40\} 0\{40\} ita\.txt$/? ita.txt/' \
  <<<"$status_before" | LC_ALL=C sort)
assert_eq "$status_after" "$status_before" "status after restore"
berth discard watched >/dev/null 2>&1

# What the paths cannot tell goes to git's status, and is right: a file in a nested repository
# made before the verdict (status takes the repository as one entry), an ignore file changed (a
# file it ignored before is not ignored now), a folder made.
ws=$(berth new nested)
(
  cd "$ws"
  mkdir emb && git -C emb init -q && echo e >emb/e.txt && git -C emb add e.txt &&
    git -C emb commit -q -m e
  echo 'x' >was-ignored.log
  berth list >/dev/null
  echo 'more' >>emb/e.txt
)
GIT_TRACE=$T/nested.trace berth discard nested >/dev/null 2>&1
assert_contains "$(cat "$T/nested.trace")" "status --porcelain=v2 -z --branch"
n=$(git for-each-ref --format='%(refname)' refs/berth/trash/nested/)
assert_eq "$(git ls-tree "$n" emb | cut -c1-6)" 160000 "the nested repository, as a gitlink"
assert_not_contains "$(git ls-tree -r --name-only "$n")" "emb/e.txt"

ws=$(berth new rules)
(
  cd "$ws"
  echo 'x' >was-ignored.log
  berth list >/dev/null
  printf 'build/\nnode_modules/\n' >.gitignore # *.log no longer ignored
  mkdir fresh && echo f >fresh/f.txt
)
GIT_TRACE=$T/rules.trace berth discard rules >/dev/null 2>&1
assert_contains "$(cat "$T/rules.trace")" "status --porcelain=v2 -z --branch"
r=$(git for-each-ref --format='%(refname)' refs/berth/trash/rules/)
assert_contains "$(git ls-tree -r --name-only "$r")" "was-ignored.log"
assert_contains "$(git ls-tree -r --name-only "$r")" "fresh/f.txt"

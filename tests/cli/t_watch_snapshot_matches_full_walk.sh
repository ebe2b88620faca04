# The snapshot `discard` takes through the watcher (only the paths it reports are looked at) is
# the very snapshot a full walk takes (-c watch.enabled=false): same work tree, same staged tree,
# for every kind of change; and `restore` brings the watched one back as it was.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/watch_helpers.sh"
make_repo app
mkdir -p pkg/api/v1 pkg/core
echo api >pkg/api/v1/api.h
echo core >pkg/core/core.c
echo other >docs/other.md
printf 'build/\n*.log\n' >.gitignore
echo 'kept log' >keep.log && git add -f keep.log # tracked although it matches .gitignore
echo old >staged-gone.txt
git add -A && git commit -q -m "more files"

# The state, built in two rounds: a `berth list` between them, so the watched snapshot starts
# from a shadow index that already holds a token (the second round is what the watcher reports).
round_one() {
  echo more >>README.md                                   # modified
  rm docs/guide.md                                        # deleted
  mkdir -p n1/n2/n3 && echo deep >n1/n2/n3/deep.txt       # untracked, in new folders
  rm src/lib/util.c && mkdir -p src/lib/util.c/sub        # a file becomes a folder of files
  echo inner >src/lib/util.c/inner.c && echo s >src/lib/util.c/sub/s.c
  rm -rf pkg/api && echo 'now a file' >pkg/api            # a folder becomes a file
  ln -s README.md newlink                                 # a symlink added
  chmod +x src/main.c                                     # exec bit on
  echo staged >>docs/other.md && git add docs/other.md    # staged ...
  echo ita >ita.txt && git add -N ita.txt                 # intent to add
  git rm -q staged-gone.txt                               # a staged deletion
  mkdir -p build && echo obj >build/out.o                 # ignored: not saved
  echo 'more log' >>keep.log                              # tracked and ignored: saved
  echo ignored >new.log                                   # ignored: not saved
}
round_two() {
  echo 'then modified again' >>docs/other.md              # ... then modified again
  ln -sfn src/main.c GUIDE                                # a symlink changed
  chmod -x bin/run.sh                                     # exec bit off
  echo space >"with space.txt"                            # awkward names
  echo unicode >"ünïcødé ✓.txt"
  echo newline >"new
line.txt"
  echo tab >"tab	name.txt"
  : >empty.txt
  printf 'a\0b\377' >n1/n2/bin.dat                         # binary, in a folder made before
  printf 'X' | dd of=README.md bs=1 seek=0 conv=notrunc status=none  # same-size edit
  printf 'Z' | dd of=src/lib/util.c/inner.c bs=1 seek=0 conv=notrunc status=none
  mv pkg/core pkg/core2                                   # a folder renamed
  echo 'in ita' >>ita.txt
  mkdir -p emb && git -C emb init -q && echo e >emb/e.txt && # an embedded repository
    git -C emb add e.txt && GIT_AUTHOR_DATE=@1700000000 GIT_COMMITTER_DATE=@1700000000 \
    git -C emb commit -q -m e                             # (the same commit in both)
}

# Timing: git trusts what it recorded of a folder while the folder's mtime is unchanged, to the
# second (without nanosecond support), unless the record is "racy" (as new as the index). So the
# rounds and the list between them go within one second, and the watched discard in a later one:
# a folder changed in round two in the second in which the list read it must still be looked at.
early_in_a_second() { while ((10#$(date +%N) > 300000000)); do :; done; }
next_second() {
  local now
  now=$(date +%s)
  while [[ $(date +%s) == "$now" ]]; do sleep 0.02; done
  sleep 0.02 # file times lag the clock by up to a tick
}

# snapshot NAME CONFIG...: build the state in a new workspace NAME, discard it with CONFIG.
snapshot() {
  local name=$1
  shift
  local ws start took
  ws=$(berth "$@" new "$name")
  (
    cd "$ws"
    berth "$@" list >/dev/null
    [[ $name != watched ]] || early_in_a_second
    start=$(date +%s%N)
    round_one
    berth "$@" list >/dev/null
    round_two
    took=$((($(date +%s%N) - start) / 1000000))
    ((took < 650)) || echo "note: the rounds took $took ms, the timing above was not met" >&2
  )
  if [[ $name == watched ]]; then
    # What must come back (read-only looks: the workspace's index is not refreshed by them).
    ws_watched=$ws
    status_before=$(GIT_OPTIONAL_LOCKS=0 git -C "$ws" status --porcelain=v2 --untracked-files=all)
    # The embedded repository is saved on its own (its files and its .git), checked below.
    emb_head=$(git -C "$ws/emb" rev-parse HEAD)
    mv "$ws/build" "$ws/new.log" "$ws/emb" "$T/"
    digest_before=$(tree_digest "$ws")
    mv "$T/build" "$T/new.log" "$T/emb" "$ws/"
  fi
  [[ $name != watched ]] || next_second
  GIT_TRACE=$T/$name.trace GIT_TRACE_FSMONITOR=$T/$name.fsmonitor \
    berth "$@" discard "$name" >/dev/null 2>&1
  [[ ! -e $ws ]]
}

snapshot watched
snapshot plain -c watch.enabled=false
assert_eq "$(berth --json watch status | jq -r .running)" true "the watcher served the watched one"

w=$(git for-each-ref --format='%(refname)' refs/berth/trash/watched/)
p=$(git for-each-ref --format='%(refname)' refs/berth/trash/plain/)
assert_same_snapshot "$w" "$p"

# The watched snapshot took the watcher's way (else the comparison proves little): git was
# told which paths changed (not "/"), and did not fall back to staging everything.
assert_contains "$(cat "$T/watched.fsmonitor")" "fsmonitor_refresh_callback 'README.md'"
assert_contains "$(cat "$T/watched.fsmonitor")" "fsmonitor_refresh_callback 'n1/n2/bin.dat'"
# And the quick snapshot was complete: the full look discard takes before it deletes the tree
# (pool.size = 0 here) found nothing to add, so the ref was never rewritten.
grep -q "built-in: git status --porcelain=v2 -z --untracked-files=all --ignore-submodules=none" \
  "$T/watched.trace" # that look did happen
assert_not_contains "$(cat "$T/watched.trace")" "completed by a full look"
assert_not_contains "$(cat "$T/plain.trace")" "watch hook"

# The snapshot itself is right (not merely the same twice).
tree=$(git ls-tree -r --name-only -z "$w" | tr '\0' '|')
for kept in README.md n1/n2/n3/deep.txt src/lib/util.c/inner.c src/lib/util.c/sub/s.c pkg/api \
  newlink ita.txt keep.log "with space.txt" "ünïcødé ✓.txt" "new
line.txt" "tab	name.txt" empty.txt n1/n2/bin.dat pkg/core2/core.c emb docs/other.md; do
  assert_contains "|$tree" "|$kept|"
done
for gone in docs/guide.md src/lib/util.c pkg/api/v1/api.h staged-gone.txt build/out.o new.log \
  pkg/core/core.c; do
  assert_not_contains "|$tree" "|$gone|"
done
assert_eq "$(git cat-file -p "$w:ita.txt")" "ita
in ita"
assert_eq "$(git cat-file -p "$w:docs/other.md" | tail -2 | tr '\n' ,)" "staged,then modified again,"
assert_eq "$(git cat-file -p "$w^2:docs/other.md" | tail -1)" staged
assert_eq "$(git ls-tree "$w" src/main.c | cut -c1-6)$(git ls-tree "$w" bin/run.sh | cut -c1-6)" \
  100755100644 "exec bits"
assert_eq "$(git cat-file -p "$w:GUIDE")" src/main.c
assert_eq "$(git ls-tree "$w" emb | cut -c1-6)" 160000 "the embedded repository, as a gitlink"

# restore brings the watched one back: every file (not the ignored ones), and the same status
# (an intent-to-add entry comes back as what the index commit can hold: an untracked file).
restored=$(berth restore watched)
assert_eq "$restored" "$ws_watched"
assert_eq "$(git -C "$restored/emb" rev-parse HEAD):$(cat "$restored/emb/e.txt")" "$emb_head:e" \
  "the embedded repository"
status_after=$(GIT_OPTIONAL_LOCKS=0 git -C "$restored" status --porcelain=v2 --untracked-files=all |
  LC_ALL=C sort)
mv "$restored/emb" "$T/emb-restored"
assert_eq "$(tree_digest "$restored")" "$digest_before" "files after restore"
status_before=$(sed 's/^1 \.A N\.\.\. 000000 000000 100644 0\{40\} 0\{40\} ita\.txt$/? ita.txt/' \
  <<<"$status_before" | LC_ALL=C sort)
assert_eq "$status_after" "$status_before" "status after restore"

# A folder swapped for another by two renames: the files of the one now at u/ never had an event
# of their own (they were made under another name), yet the snapshot must hold them.
ws=$(berth new swap)
cd "$ws"
mkdir u && echo x >u/x
berth list >/dev/null
mkdir stage && echo 1 >stage/y1 && echo 2 >stage/y2
berth list >/dev/null
mv u u_old && mv stage u
cd "$T/app"
berth discard swap >/dev/null 2>&1
s=$(git for-each-ref --format='%(refname)' refs/berth/trash/swap/)
assert_eq "$(git ls-tree -r --name-only "$s" -- u u_old | tr '\n' ' ')" "u/y1 u/y2 u_old/x " \
  "the swapped folders in the snapshot"

# Helpers of the watcher tests (t_watch_*.sh), sourced after common.sh.

# git_counts DIR: what git says of DIR with no help (every file stat'ed, every folder read), as
# list counts them: dirty,staged,modified,untracked,conflicted.
git_counts() {
  GIT_OPTIONAL_LOCKS=0 git -C "$1" -c core.fsmonitor=false -c core.untrackedCache=false \
    status --porcelain=v2 --untracked-files=all |
    awk '/^[12] / { if (substr($2, 1, 1) != ".") s++; if (substr($2, 2, 1) != ".") m++ }
         /^u / { c++ }
         /^\? / { u++ }
         END { printf "%s,%d,%d,%d,%d", (s + m + u + c > 0) ? "true" : "false", s, m, u, c }'
}

# assert_same_snapshot REF REF: two trash snapshots hold the same HEAD (parent 1), staged tree
# (parent 2's tree) and work tree (the commit's tree); the work trees' difference is shown.
assert_same_snapshot() {
  local a=$1 b=$2
  [[ -n $a && -n $b ]]
  assert_eq "$(git rev-parse "$a^1")" "$(git rev-parse "$b^1")" "HEAD"
  assert_eq "$(git rev-parse "$a^2^{tree}")" "$(git rev-parse "$b^2^{tree}")" "staged tree"
  if [[ $(git rev-parse "$a^{tree}") != "$(git rev-parse "$b^{tree}")" ]]; then
    git diff --stat "$b" "$a" >&2
    assert_eq "$(git rev-parse "$a^{tree}")" "$(git rev-parse "$b^{tree}")" "work tree"
  fi
}

# ---- every kind of file-level change, in two rounds (t_discard_by_watcher_paths,
# t_compare_restated_verdict) ----------------------------------------------------------------

# file_level_repo: the files the rounds change, committed in the current repository (make_repo's).
file_level_repo() {
  printf 'build/\n*.log\nnode_modules/\n' >.gitignore
  echo 'kept log' >keep.log && git add -f keep.log # tracked although it matches .gitignore
  echo old >gone.txt
  echo 'back again' >reverted.txt
  git add -A && git commit -q -m "more files"
}

# round_one [--no-intent], before the `list` that keeps the verdict: changes it names, and
# ignored folders that exist from then on (--no-intent: ita.txt untracked, not intent-to-add).
round_one() {
  echo 'staged' >>docs/guide.md && git add docs/guide.md # staged, modified again below
  echo ita >ita.txt
  [[ ${1:-} == --no-intent ]] || git add -N ita.txt       # intent to add
  echo dirty >>reverted.txt                              # dirty then, reverted below
  echo 'untracked then' >early.txt                       # untracked then, changed below
  mkdir -p build node_modules/pkg && echo obj >build/out.o && echo m >node_modules/pkg/i.js
}
# Round two, after it: file-level changes only (no folder made or removed, no ignore file).
round_two() {
  echo more >>README.md                                  # modified
  printf 'X' | dd of=src/main.c bs=1 seek=0 conv=notrunc status=none # same-size edit
  rm gone.txt                                            # deleted
  echo 'then modified again' >>docs/guide.md             # staged, then modified
  echo 'in ita' >>ita.txt
  echo 'back again' >reverted.txt                        # reverted to HEAD's content
  echo 'and now' >>early.txt
  echo new >src/lib/new.c                                # untracked, in a folder of the tree
  echo space >"with space.txt"                           # awkward names
  echo unicode >"ünïcødé ✓.txt"
  echo tab >"tab	name.txt"
  : >empty.txt
  ln -s README.md newlink                                # a symlink added
  ln -sfn src/main.c GUIDE                               # a symlink changed
  chmod +x src/lib/util.c                                # exec bit on
  chmod -x bin/run.sh                                    # exec bit off
  echo 'more log' >>keep.log                             # tracked and ignored: saved
  echo ignored >new.log                                  # ignored: not saved
  echo obj2 >build/out2.o                                # in an ignored folder: not saved
  echo m2 >node_modules/pkg/j.js
  echo brief >brief.txt && rm brief.txt                  # came and went
}

# digest_unignored DIR: tree_digest's, leaving out the ignored files (which are not saved), without
# touching the tree (moving them away and back would be changes of folders the watcher reports).
digest_unignored() {
  (
    cd "$1"
    local prune=(-path ./.git -o -path ./build -o -path ./node_modules -o -path ./new.log)
    find . \( "${prune[@]}" \) -prune -o ! -type d -printf '%y %m %p -> %l\n' | LC_ALL=C sort
    find . \( "${prune[@]}" \) -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum
  ) | sha256sum | cut -d' ' -f1
}


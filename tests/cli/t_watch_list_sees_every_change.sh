# With the watcher on (the default), `berth list` never shows a stale state: after every kind of
# change to a workspace (work tree, index, HEAD, ignore files), made right before the list and
# without waiting, its counts are what a full `git status` (no fsmonitor, no untracked cache)
# says at that moment.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/watch_helpers.sh"
make_repo app
mkdir -p pkg/core/impl pkg/api
echo 'core' >pkg/core/core.c
echo 'impl' >pkg/core/impl/impl.c
echo 'api' >pkg/api/api.h
printf 'build/\n' >.gitignore
git add -A && git commit -q -m "nested folders"
ws=$(berth new w)
base=$(git -C "$ws" rev-parse HEAD)
cd "$ws"

# What git says with no help: every file stat'ed, every folder read.
truth() {
  local counts ahead head branch
  counts=$(git_counts "$ws")
  ahead=$(git -C "$ws" rev-list --count "$base..HEAD")
  head=$(git -C "$ws" rev-parse HEAD)
  branch=$(git -C "$ws" symbolic-ref -q --short HEAD || true)
  printf '[%s,%s,"%s","%s"]' "$counts" "$ahead" "$head" "$branch"
}

# check STEP: berth list right now agrees with git right now.
check() {
  local got want
  got=$(berth --json list | jq -c '.[] | select(.name == "w") |
    [.dirty, .changes.staged, .changes.modified, .changes.untracked, .changes.conflicted,
     .ahead, .head, .head_branch]')
  want=$(truth)
  if [[ $got != "$want" ]]; then
    echo "after: $1" >&2
    GIT_OPTIONAL_LOCKS=0 git -C "$ws" -c core.fsmonitor=false status --porcelain -uall >&2
  fi
  assert_eq "$got" "$want" "list after: $1"
}

check "nothing yet"
status=$(berth --json watch status)
assert_eq "$(jq -r .running <<<"$status")" true "watcher running after the first list"
(($(jq -r .roots <<<"$status") >= 1))
(($(jq -r .watches <<<"$status") >= 8)) # every folder of the workspace
check "nothing, again (the cached verdict)"

echo more >>README.md
check "append to a tracked file"

# Same-size edits, each within milliseconds of the previous list: flip one byte of a clean file
# and back, several times (some of them surely inside one second, and one clock tick).
for i in 1 2 3 4 5; do
  printf 'X' | dd of=src/main.c bs=1 seek=0 conv=notrunc status=none
  check "same-size edit $i"
  printf 'i' | dd of=src/main.c bs=1 seek=0 conv=notrunc status=none
  check "same-size edit $i undone"
done
assert_eq "$(git diff --stat -- src/main.c)" "" "main.c is back as committed"

mkdir -p new/a/b/c && echo deep >new/a/b/c/deep.txt
check "untracked file in a new deep folder"
echo deeper >new/a/b/c/second.txt
mkdir new/a/b/c/d && echo x >new/a/b/c/d/x.txt
check "more files in the folders made since"

rm docs/guide.md
check "delete a tracked file"

chmod +x src/lib/util.c
check "chmod +x a tracked file"

mv pkg pkg2
check "rename a folder of tracked files"
mv pkg2 pkg
check "rename it back"
mv pkg/core pkg/core2 && echo n >pkg/core2/impl/new.c
check "rename a nested folder and add a file in it"

git add -A
check "git add (the index changed)"

git commit -q -m "work"
check "git commit (HEAD moved)"

echo again >>README.md && echo u >loose.txt && echo staged >>pkg/api/api.h && git add pkg/api/api.h
check "edit, untracked, stage after the commit"

git reset -q --hard
check "git reset --hard"

git clean -fdq
check "git clean -fd"

git checkout -q -b other
check "git checkout -b (another branch)"
git checkout -q berth/w
check "git checkout back"

mkdir -p gen/out && echo log >gen/out/run.log && echo keep >gen/out/keep.txt
check "untracked files to be ignored"
echo '*.log' >>.gitignore
check ".gitignore hides one of them (and is modified)"
git commit -q -am "ignore logs"
check "commit the .gitignore"

echo note >gen/out/notes.bak
check "an untracked file to exclude"
echo '*.bak' >>"$T/app/.git/info/exclude"
check "the project's info/exclude hides it"

git reset -q --hard "$base" && git clean -fdq
check "back to the base, nothing left"

# Folders swapped by renames: the folder now at u/ never had an event for its files (they were
# made elsewhere), yet they must be seen.
mkdir u && echo x >u/x
check "an untracked folder"
mkdir stage && echo 1 >stage/y1 && echo 2 >stage/y2
check "another untracked folder"
mv u u_old && mv stage u
check "swap the folders by renames"
mkdir -p "$T/outside/v" && echo v >"$T/outside/v/v1" && echo v >"$T/outside/v/v2"
mv u/y1 u/y1.moved
check "rename inside the swapped folder"
mv u_old "$T/gone" && mv "$T/outside/v" u_old
check "a folder moved in from outside the work tree, to a name seen before"

# A global excludes file named by core.excludesFile (not the default path) hides a file.
echo junk >junk.tmp
git config --global core.excludesFile "$HOME/global-ignore"
check "an untracked file to hide globally"
echo '*.tmp' >"$HOME/global-ignore"
check "core.excludesFile hides it"
# Pointed at another file: the configuration changed, so the answer berth remembered from git
# (.git/berth/shadow/core-paths) is not used.
echo '*.log' >"$HOME/other-ignore"
git config --global core.excludesFile "$HOME/other-ignore"
check "core.excludesFile points at another file: the file shows again"
# Set in a file the configuration includes: a change made there alone is seen too.
git config --global --unset core.excludesFile
printf '[core]\n\texcludesFile = %s\n' "$HOME/global-ignore" >"$HOME/included"
git config --global include.path "$HOME/included"
check "core.excludesFile set in an included file hides it"
printf '[core]\n\texcludesFile = %s\n' "$HOME/other-ignore" >"$HOME/included"
check "the included file points elsewhere: the file shows again"
git config --global --unset include.path
check "no core.excludesFile any more"

# restore brings a discarded workspace back byte for byte: branch commits, staged, modified,
# untracked and deleted files, executable bits, symlinks, binary content.
. "$(dirname "$0")/common.sh"
make_repo app
printf 'build/\n' >.gitignore
git add .gitignore && git commit -q -m ignore
ws=$(berth new task --owner bot)
cd "$ws"
commit_file feature.c "int feature;" "first step"
commit_file docs/feature.md "how it works" "second step"
echo "unstaged edit" >>README.md                      # modified, not staged
echo "staged edit" >>src/main.c && git add src/main.c # staged
echo "then more" >>src/main.c                         # staged and modified again
echo "brand new" >added.txt && git add added.txt      # added
rm docs/guide.md                                      # deleted, not staged
git rm -q src/lib/util.c                              # deleted, staged
chmod +x feature.c                                    # mode change
printf 'no newline' >untracked.txt                    # untracked
mkdir -p "deep/dir with space" && printf 'a\r\nb\0c\377' >"deep/dir with space/bin.dat"
ln -s ../README.md deep/link
ln -sf README.md GUIDE                                # a changed symlink
mkdir -p build && echo out >build/out.o               # ignored: not kept
files=$(tree_digest "$ws")
status=$(git status --porcelain=v2 --branch --untracked-files=all)
staged=$(git diff --cached --binary)
unstaged=$(git diff --binary)
head=$(git rev-parse HEAD)
log=$(git log --format='%H %s' berth/task)
cd "$T/app"
rm -f "$ws/build/out.o" && rmdir "$ws/build" # the expected state has no ignored files
files_without_ignored=$(tree_digest "$ws")
mkdir -p "$ws/build" && echo out >"$ws/build/out.o"

berth discard task >/dev/null 2>&1
[[ ! -e $ws ]]
restored=$(berth restore task)
assert_eq "$restored" "$ws"
cd "$ws"
assert_eq "$(tree_digest "$ws")" "$files_without_ignored" "files"
assert_eq "$(git status --porcelain=v2 --branch --untracked-files=all)" "$status" "status"
assert_eq "$(git diff --cached --binary)" "$staged" "staged changes"
assert_eq "$(git diff --binary)" "$unstaged" "unstaged changes"
assert_eq "$(git rev-parse HEAD)" "$head" "HEAD"
assert_eq "$(git symbolic-ref HEAD)" refs/heads/berth/task
assert_eq "$(git log --format='%H %s' berth/task)" "$log" "branch commits"
[[ -x feature.c && -L deep/link && ! -e build ]]
cd "$T/app"
json=$(berth --json status task)
assert_eq "$(jq -c '[.state, .owner, .ahead]' <<<"$json")" '["ready","bot",2]'
assert_contains "$(jq -r .lock_reason <<<"$json")" berth

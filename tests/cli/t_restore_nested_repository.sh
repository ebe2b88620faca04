# Repositories an agent makes inside a workspace (git init and commits, a clone of a local
# repository, a git init without any commit) are named by diff, kept by discard with their
# history, staged state and files, and restored as repositories byte for byte.
. "$(dirname "$0")/common.sh"
make_repo upstream
commit_file up.c 'int up;' 'up'
git tag v1
git tag -a v2 -m "annotated"
make_repo app
ws=$(berth new t)
cd "$ws"
# 1. git init, two commits on a branch of its own, then staged, modified and untracked work.
mkdir -p vendor/lib && cd vendor/lib
git init -q
commit_file a.txt 'one' 'first'
git checkout -q -b work
commit_file b.txt 'two' 'second'
echo staged >>a.txt && git add a.txt
echo unstaged >>b.txt
printf 'untracked\r\n' >new.txt
ln -s a.txt link
lib_head=$(git rev-parse HEAD)
lib_files=$(tree_digest .)
lib_status=$(git status --porcelain=v2 --branch --untracked-files=all)
lib_log=$(git log --format='%H %s' --all)
# 2. A clone of a local repository, with an edit.
cd "$ws"
git clone -q "$T/upstream" tools/up
echo stashed >>tools/up/up.c && git -C tools/up stash -q # the stash is a ref like any other
stash=$(git -C tools/up rev-parse refs/stash)
echo edit >>tools/up/up.c
up_head=$(git -C tools/up rev-parse HEAD)
up_files=$(tree_digest tools/up)
# 3. No commit at all.
mkdir -p scratch && git -C scratch init -q && echo draft >scratch/draft.txt
git -C scratch add draft.txt
echo loose >scratch/loose.txt
cd "$T/app"

assert_eq "$(berth diff t --name-only 2>/dev/null | sort)" "$(printf 'scratch\ntools/up\nvendor/lib')"
json=$(berth --json diff t 2>/dev/null)
assert_eq "$(jq -c '[.nested[] | [.path, .kind]] | sort' <<<"$json")" \
  '[["scratch","repository"],["tools/up","repository"],["vendor/lib","repository"]]'

berth list >/dev/null # (the watcher now serves this workspace)
json=$(berth --json discard t)
assert_eq "$(jq .unsaved_work <<<"$json")" true
[[ ! -e $ws ]]
git cat-file -e "$lib_head^{commit}"

berth restore t >/dev/null 2>"$TMPDIR/restore.err" || { cat "$TMPDIR/restore.err" >&2; false; }
cd "$ws/vendor/lib"
[[ -d .git ]]
assert_eq "$(tree_digest .)" "$lib_files" "vendor/lib files"
assert_eq "$(git rev-parse HEAD)" "$lib_head" "vendor/lib HEAD"
assert_eq "$(git status --porcelain=v2 --branch --untracked-files=all)" "$lib_status" "vendor/lib status"
assert_eq "$(git log --format='%H %s' --all)" "$lib_log" "vendor/lib history"
cd "$ws/tools/up"
assert_eq "$(git rev-parse HEAD)" "$up_head"
assert_eq "$(tree_digest .)" "$up_files" "tools/up files"
assert_eq "$(git rev-parse v1):$(git rev-parse "v2^{commit}")" "$up_head:$up_head" "tags are kept"
assert_eq "$(git remote get-url origin 2>/dev/null || echo none)" "$T/upstream" "its remote"
assert_eq "$(git rev-parse refs/stash)" "$stash" "its stash"
assert_contains "$(git stash show -p)" "+stashed"
cd "$ws/scratch"
assert_eq "$(cat draft.txt loose.txt)" "$(printf 'draft\nloose')"
assert_eq "$(git status --porcelain)" "$(printf 'A  draft.txt\n?? loose.txt')"

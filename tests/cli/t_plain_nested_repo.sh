# A git repository nested in a plain folder (a downloaded project with its own .git): the
# workspace has its working files as ordinary files (committed, untracked, even a repository
# without a commit yet; its .gitignore applies), never its .git; accept writes the agent's changes
# of them into the folder and leaves every nested .git byte-for-byte alone. A plain folder whose
# top holds a `.git` file or an empty `.git` folder (no repository) is a plain folder like any
# other (its .git never taken); inside a repository's ignored folder berth takes the repository
# (and says so), unless --plain.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/plain_helpers.sh"
F=$T/folder
mkdir -p "$F/vendor/lib/src" "$F/vendor/lib/inner" "$F/fresh"
cd "$F"
echo top >notes.txt
(
  cd vendor/lib
  git init -q
  echo 'int lib;' >src/lib.c
  echo '*.o' >.gitignore
  git add -A && git commit -q -m lib
  echo built >src/lib.o # ignored by the nested .gitignore
  echo wip >untracked.txt
  cd inner && git init -q && echo inner >inner.txt && git add -A && git commit -q -m inner
)
(cd fresh && git init -q && echo new >new.txt) # a repository with no commit yet
nested_digest() { (cd "$F" && find vendor/lib/.git vendor/lib/inner/.git fresh/.git -printf '%y %m %T@ %s %p\n' | LC_ALL=C sort && find vendor/lib/.git vendor/lib/inner/.git fresh/.git -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum) | sha256sum; }
git_before=$(nested_digest)
before=$(folder_digest "$F")

ws=$(berth --json new agent | jq -r .workspace.path)
assert_folder_unchanged "$before" "$F" new
for f in notes.txt vendor/lib/src/lib.c vendor/lib/untracked.txt vendor/lib/.gitignore \
  vendor/lib/inner/inner.txt fresh/new.txt; do
  [[ -f $ws/$f ]] || { echo "the workspace lacks $f" >&2; exit 1; }
done
for f in vendor/lib/src/lib.o vendor/lib/.git vendor/lib/inner/.git fresh/.git; do
  not 1 test -e "$ws/$f"
done
# Taken as files, not gitlinks: the workspace's base has no gitlink.
assert_eq "$(git -C "$ws" ls-tree -r HEAD | grep -c '^160000' || true)" 0 "gitlinks in the base"

# The agent edits, adds and deletes files of the nested repositories.
echo 'int lib2;' >>"$ws/vendor/lib/src/lib.c"
echo added >"$ws/vendor/lib/inner/added.txt"
rm "$ws/fresh/new.txt"
berth --json accept agent >/dev/null
assert_eq "$(tail -n1 vendor/lib/src/lib.c)" 'int lib2;' "the nested repository's file"
assert_eq "$(cat vendor/lib/inner/added.txt)" added "the added file"
[[ ! -e fresh/new.txt && -d fresh/.git ]]
assert_eq "$(nested_digest)" "$git_before" "the nested .git folders"
# The nested repository sees the accepted change as its own working change.
assert_eq "$(git -C vendor/lib status --porcelain -- src)" " M src/lib.c" "nested status"

# A later new starts from the folder with those changes (the nested files followed).
ws2=$(berth --json new again | jq -r .workspace.path)
[[ -f $ws2/vendor/lib/inner/added.txt && ! -e $ws2/fresh/new.txt ]]

# A plain folder whose top has a `.git` file (no repository behind it) or an empty `.git` folder.
for kind in file dir; do
  G=$T/top-$kind
  mkdir -p "$G"
  cd "$G"
  echo data >data.txt
  if [[ $kind == file ]]; then echo 'gitdir: /nonexistent' >.git; else mkdir .git; fi
  before=$(folder_digest "$G")
  ws=$(berth --json new t | jq -r .workspace.path)
  assert_eq "$(folder_digest "$G")" "$before" "the $kind .git folder after new"
  [[ -f $ws/data.txt && ! -e $ws/.git/HEAD ]]
  echo more >>"$ws/data.txt"
  # (The text says what happened: written into the folder, not staged.)
  assert_eq "$(berth accept t --keep)" "wrote 1 file(s) of 't' into $G" "accept's text"
  assert_eq "$(tail -n1 data.txt)" more "accepted into the folder with a .git $kind"
  if [[ $kind == file ]]; then assert_eq "$(cat .git)" 'gitdir: /nonexistent' ".git file"; else [[ -z $(ls -A .git) ]]; fi
done

# A folder the repository ignores: berth takes the repository, and warns that the workspace
# will not hold that folder; --plain keeps it as a plain folder.
make_repo app
echo 'data/' >>.git/info/exclude
mkdir data && echo d >data/d.txt
cd data
out=$(berth --json new inrepo)
jq -e '.warnings | any(test("ignored"))' <<<"$out" >/dev/null
ws=$(berth --json new --plain d | jq -r .workspace.path)
[[ -f $ws/d.txt && ! -e $ws/README.md ]]

# `berth diff NAME [--] PATH...` limits every format to those files or the files under those
# folders, literally (a file named `*` is that file, not a glob); a rename is kept whole when
# either name is wanted, and the limited patch still applies on the base.
. "$(dirname "$0")/common.sh"
make_repo app
mkdir -p src doc
printf "a\n%.0s" 1 2 3 4 5 6 7 8 >src/a.c
echo b >doc/b.md
echo star >'*'
echo s >'sp ace.txt'
git add . && git commit -qm files
ws=$(berth new x)
cd "$ws"
echo more >>src/a.c
git mv src/a.c lib.c
echo more >>doc/b.md
echo more >>'sp ace.txt'
echo more >>'*'
cd "$T/app"

assert_eq "$(berth diff x --name-only -- doc)" "doc/b.md"
assert_eq "$(berth diff x --name-only doc/ 'sp ace.txt')" "$(printf 'doc/b.md\nsp ace.txt')"
assert_eq "$(berth diff x --name-only -- '*')" "*"
# The rename's old side asked for: the rename whole, in the list and in the patch.
assert_eq "$(berth --json diff x src | jq -r '.files[] | "\(.status) \(.old_path) \(.path)"')" \
  "R src/a.c lib.c"
berth diff x src >"$T/src.patch"
grep -q '^rename from src/a.c' "$T/src.patch"
not 1 grep -q 'doc/b.md' "$T/src.patch"
# The limited patch applies on the base and gives exactly those files.
git worktree add -q "$T/check" HEAD
git -C "$T/check" apply --index "$T/src.patch"
assert_eq "$(tail -1 "$T/check/lib.c")" more
assert_eq "$(git -C "$T/check" status --porcelain)" "$(printf 'R  src/a.c -> lib.c')"
git worktree remove --force "$T/check"
# Nothing wanted: an empty diff, not an error.
assert_eq "$(berth diff x --name-only nothing-here)" ""
assert_eq "$(berth --json diff x --stat nothing-here | jq '.files | length')" "0"

# A workspace directory replaced by a symlink to a directory outside: discard removes the link,
# never anything it points to.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new x)
(cd "$ws" && commit_file work.txt "committed work")
mkdir -p "$T/precious/sub"
echo "do not delete" >"$T/precious/file"
echo "nor this" >"$T/precious/sub/file"
cp -a "$ws/.git" "$T/precious/.git"
precious=$(cd "$T/precious" && find . -printf '%p %s\n' | sort | sha256sum)
rm -rf "$ws"
ln -s "$T/precious" "$ws"

berth discard x >/dev/null 2>"$TMPDIR/err" || status=$?
assert_contains "$(cat "$TMPDIR/err")" "replaced by a symlink"
assert_eq "$(cd "$T/precious" && find . -printf '%p %s\n' | sort | sha256sum)" "$precious" "the outside directory"
assert_eq "${status:-0}" 0 "exit status of discard"
[[ ! -L $ws && ! -e $ws ]]
assert_eq "$(berth --json list)" "[]"
# Its commits were still saved.
assert_eq "$(git show "$(git for-each-ref --format='%(refname)' refs/berth/trash/x/):work.txt")" "committed work"

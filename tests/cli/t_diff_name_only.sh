# `berth diff --name-only` prints the changed paths, one per line, and nothing else.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new x)
echo more >>"$ws/README.md"
echo new >"$ws/added.txt"
rm "$ws/docs/guide.md"
git -C "$ws" add -A
git -C "$ws" commit -q -m "part one"
echo later >"$ws/src/later.c"

assert_eq "$(berth diff x --name-only)" "$(printf 'README.md\nadded.txt\ndocs/guide.md\nsrc/later.c')"
# --stat and --name-only together is a usage error.
not 2 berth diff x --stat --name-only >/dev/null

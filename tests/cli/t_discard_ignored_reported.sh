# Ignored files (build output) are not snapshotted, but discard says how many and how large.
. "$(dirname "$0")/common.sh"
make_repo app
printf 'build/\n*.log\n' >.gitignore
git add .gitignore && git commit -q -m ignore
ws=$(berth new build)
mkdir -p "$ws/build/obj"
head -c 3000 /dev/zero >"$ws/build/obj/main.o"
head -c 500 /dev/zero >"$ws/run.log"
echo keep >"$ws/src.txt"

berth discard build 2>"$TMPDIR/err" >/dev/null
assert_contains "$(cat "$TMPDIR/err")" "2 ignored file(s), 3.5 KB"
ref=$(git for-each-ref --format='%(refname)' refs/berth/trash/build/)
assert_eq "$(git ls-tree -r --name-only "$ref" | grep -c -e '^build/' -e 'run.log' || true)" 0
assert_eq "$(git show "$ref:src.txt")" keep

ws=$(berth new b2)
head -c 1234 /dev/zero >"$ws/x.log"
json=$(berth --json discard b2 2>/dev/null)
assert_eq "$(jq -c '[.ignored_files, .ignored_bytes]' <<<"$json")" "[1,1234]"
# --quiet keeps the warning off stderr too.
ws=$(berth new b3)
head -c 10 /dev/zero >"$ws/y.log"
assert_eq "$(berth --quiet discard b3 2>&1)" ""

# `berth diff --stat` summarises: status, lines added and removed per file, a total line; binary
# files marked as such.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new x)
printf 'one\ntwo\nthree\n' >>"$ws/README.md"
sed -i 1d "$ws/src/main.c"
printf 'a\0b' >"$ws/blob.bin"
git -C "$ws" mv docs/guide.md docs/manual.md

out=$(berth diff x --stat)
assert_eq "$(grep -c . <<<"$out")" 5 "lines of --stat"
grep -Eq '^M +\+3 +-0 +README\.md$' <<<"$out"
grep -Eq '^M +\+0 +-1 +src/main\.c$' <<<"$out"
grep -Eq '^A +bin +blob\.bin$' <<<"$out"
grep -Eq '^R .*docs/guide\.md => docs/manual\.md$' <<<"$out"
assert_eq "$(tail -n1 <<<"$out")" "4 file(s) changed, 3 insertion(s), 1 deletion(s)"

# No change: no output at all.
berth new y >/dev/null
assert_eq "$(berth diff y --stat)" ""

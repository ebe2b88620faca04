# A rename (with an edit) lands as a rename: the old path gone, the new one there, with apply and
# with squash; a user's uncommitted edit of the OLD path refuses it.
. "$(dirname "$0")/common.sh"
make_repo app
seq 1 50 >data.txt
git add data.txt && git commit -q -m data

ws=$(berth new a)
git -C "$ws" mv src/lib/util.c src/lib/math.c
mv "$ws/data.txt" "$ws/numbers.txt" && echo 51 >>"$ws/numbers.txt"
assert_eq "$(berth --json accept a --dry-run | jq -c '[.files[] | select(.status == "R") | [.old_path, .path]] | sort')" \
  '[["data.txt","numbers.txt"],["src/lib/util.c","src/lib/math.c"]]'
# The user has edited the old path: refused, naming it.
echo mine >>data.txt
out=$(expect_error dirty_target 5 berth --json accept a)
assert_eq "$(jq -c .error.paths <<<"$out")" '["data.txt"]'
git checkout -q data.txt

berth accept a --strategy apply >/dev/null
[[ ! -e src/lib/util.c && ! -e data.txt ]]
assert_eq "$(cat src/lib/math.c)" 'int add(int a, int b) { return a + b; }'
assert_eq "$(tail -n1 numbers.txt)" 51
assert_eq "$(git status --porcelain | sort | tr '\n' '|')" "R  data.txt -> numbers.txt|R  src/lib/util.c -> src/lib/math.c|"
git commit -q -m "take a"

ws=$(berth new b)
git -C "$ws" mv README.md READ-ME.md
berth accept b --strategy squash >/dev/null
[[ ! -e README.md ]]
assert_eq "$(cat READ-ME.md)" "# app"
assert_eq "$(git diff --name-status -M HEAD~1 HEAD)" "$(printf 'R100\tREADME.md\tREAD-ME.md')"
assert_eq "$(git status --porcelain --untracked-files=all)" ""

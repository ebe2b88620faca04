# Files (and a whole folder) the workspace deleted are deleted in the user's checkout, staged with
# apply and committed with merge; the now-empty folder goes too.
. "$(dirname "$0")/common.sh"
make_repo app 3

ws=$(berth new a)
rm "$ws/files/0/f0.txt" "$ws/docs/guide.md"
berth accept a --strategy apply >/dev/null
[[ ! -e files/0/f0.txt && ! -e docs/guide.md && ! -d files/0 ]]
assert_eq "$(git status --porcelain | sort | tr '\n' '|')" "D  docs/guide.md|D  files/0/f0.txt|"
git commit -q -m "take a"

ws=$(berth new b)
git -C "$ws" rm -q -r src
echo gone >"$ws/GONE.md"
berth accept b --strategy merge >/dev/null
[[ ! -e src ]]
assert_eq "$(git ls-files src)" ""
assert_eq "$(git status --porcelain --untracked-files=all)" ""

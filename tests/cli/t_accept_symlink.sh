# Symlinks the workspace added, retargeted, turned into a file or deleted land as such (a link,
# not a copy of its target), with apply and with merge.
. "$(dirname "$0")/common.sh"
make_repo app
ln -s src/main.c MAIN
git add MAIN && git commit -q -m "a link"

ws=$(berth new a)
ln -sfn README.md "$ws/GUIDE"
ln -s ../docs "$ws/src/docs-link"
berth accept a --strategy apply >/dev/null
assert_eq "$(readlink GUIDE)" README.md
assert_eq "$(readlink src/docs-link)" ../docs
assert_eq "$(git ls-files -s GUIDE src/docs-link | cut -c1-6 | tr '\n' ' ')" "120000 120000 "
assert_eq "$(git diff --name-only)" ""
git commit -q -m "take a"

ws=$(berth new b)
rm "$ws/MAIN" && echo "now a file" >"$ws/MAIN"
rm "$ws/GUIDE"
ln -s docs/guide.md "$ws/GUIDE2"
berth accept b --strategy merge >/dev/null
[[ -f MAIN && ! -L MAIN && ! -e GUIDE && ! -L GUIDE ]]
assert_eq "$(cat MAIN)" "now a file"
assert_eq "$(readlink GUIDE2)" docs/guide.md
assert_eq "$(git status --porcelain --untracked-files=all)" ""

# A mode change (executable bit on and off, with no content change) lands, with apply and with ff.
. "$(dirname "$0")/common.sh"
make_repo app

ws=$(berth new a)
chmod -x "$ws/bin/run.sh"
chmod +x "$ws/README.md"
berth accept a --strategy apply >/dev/null
[[ ! -x bin/run.sh && -x README.md ]]
assert_eq "$(git ls-files -s bin/run.sh README.md | cut -c1-6 | tr '\n' ' ')" "100755 100644 "
assert_eq "$(git diff --name-only)" ""
git commit -q -m "take a"

ws=$(berth new b)
chmod +x "$ws/bin/run.sh"
berth accept b --strategy ff >/dev/null
[[ -x bin/run.sh ]]
assert_eq "$(git ls-tree HEAD bin/run.sh | cut -c1-6)" 100755
assert_eq "$(git status --porcelain --untracked-files=all)" ""

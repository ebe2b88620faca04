# setup.link shares a cache with the main checkout through a symlink; the workspace stays clean.
. "$(dirname "$0")/common.sh"
make_repo app
printf 'shared-cache/\n' >.gitignore
git add .gitignore && git commit -qm ignore
mkdir shared-cache && echo data >shared-cache/blob

ws=$(berth -c setup.link=shared-cache/ new x 2>/dev/null)
[[ -L $ws/shared-cache ]]
assert_eq "$(readlink "$ws/shared-cache")" "$PWD/shared-cache"
echo more >"$ws/shared-cache/new"
assert_eq "$(cat shared-cache/new)" more "shared with the main checkout"
# "shared-cache/" matches folders only; berth makes sure the link is ignored as well.
assert_eq "$(git -C "$ws" status --porcelain)" ""
assert_eq "$(git status --porcelain)" ""
json=$(berth --json -c setup.link=shared-cache new y 2>/dev/null)
assert_eq "$(jq -c '.setup.copies[0] | [.path, .kind, .method]' <<<"$json")" '["shared-cache","link","symlink"]'

# A path outside the project is refused.
ws=$(berth -c setup.link=../elsewhere new z 2>"$TMPDIR/err")
assert_contains "$(cat "$TMPDIR/err")" "'../elsewhere' ignored"

# Submodules are initialised and checked out in a new workspace from the main checkout's own
# module repositories: no network (the recorded URL is unreachable), and the workspace's
# submodule still names the real URL afterwards.
. "$(dirname "$0")/common.sh"
make_repo lib
commit_file lib.c 'int lib(void);' 'lib'
lib_head=$(git rev-parse HEAD)
make_repo app
git -c protocol.file.allow=always submodule add -q "$T/lib" vendor/lib
git commit -qm 'add lib'
# From now on the URL leads nowhere: any fetch would fail.
git config -f .gitmodules submodule.vendor/lib.url https://unreachable.invalid/lib.git
git commit -qam 'move lib'
git submodule sync -q
mv "$T/lib" "$T/lib-gone"
config_before=$(git config --local --list)

json=$(GIT_ALLOW_PROTOCOL=file berth --json new x 2>"$TMPDIR/err") || { cat "$TMPDIR/err" >&2; false; }
ws=$(jq -r .path <<<"$json")
assert_eq "$(cat "$ws/vendor/lib/lib.c")" 'int lib(void);'
assert_eq "$(git -C "$ws/vendor/lib" rev-parse HEAD)" "$lib_head"
assert_eq "$(jq -c .setup.submodules <<<"$json")" '["vendor/lib"]'
assert_eq "$(git -C "$ws/vendor/lib" config remote.origin.url)" https://unreachable.invalid/lib.git
assert_eq "$(git -C "$ws" status --porcelain)" "" "the workspace is clean"
assert_eq "$(git config --local --list)" "$config_before" "the project's config is unchanged"
assert_eq "$(git status --porcelain)" ""

# A submodule cloned by hand (its repository inside the main checkout's folder, not absorbed into
# .git/modules) is shared the same way.
git clone -q "$T/lib-gone" tools
git submodule add -q https://unreachable.invalid/tools.git tools >/dev/null
git commit -qm 'add tools'
[[ -d tools/.git ]]
json=$(berth --json new y 2>/dev/null)
ws=$(jq -r .path <<<"$json")
assert_eq "$(jq -c '.setup.submodules | sort' <<<"$json")" '["tools","vendor/lib"]'
assert_eq "$(cat "$ws/tools/lib.c")" 'int lib(void);'
assert_eq "$(git -C "$ws" status --porcelain)" ""

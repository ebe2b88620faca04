# A bare repository has no HEAD worktree to start from: new needs --base there.
. "$(dirname "$0")/common.sh"
make_repo app
git clone -q --bare "$T/app" "$T/app.git"
cd "$T/app.git"
before=$(fingerprint)

out=$(expect_error bare_repository 1 berth --json new x)
assert_contains "$(jq -r .error.hint <<<"$out")" "--base"
assert_unchanged "$before"

ws=$(berth new x --base main)
[[ $ws != "$T/app.git"* ]]
assert_eq "$(git -C "$ws" status --porcelain --untracked-files=all)" ""
assert_eq "$(git rev-parse berth/x)" "$(git rev-parse main)"
assert_eq "$(berth --json list | jq -r '.[].name')" x
berth discard x >/dev/null
assert_eq "$(berth --json list | jq length)" 0
[[ ! -e $ws ]]

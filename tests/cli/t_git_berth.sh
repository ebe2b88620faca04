# With git-berth on PATH, `git berth ...` is berth.
. "$(dirname "$0")/common.sh"
[[ -x $GIT_BERTH_BIN ]] || skip "no git-berth binary at $GIT_BERTH_BIN"
mkdir -p "$T/bin"
ln -s "$GIT_BERTH_BIN" "$T/bin/git-berth"
export PATH=$T/bin:$PATH
make_repo app

ws=$(git berth new fix)
assert_eq "$ws" "$(berth path fix)"
assert_eq "$(json_logged git berth --json list | jq -r '.[].name')" fix
assert_contains "$(git berth list)" fix
assert_eq "$(cd src && git berth path fix)" "$ws"
not 4 git berth path nope >/dev/null
assert_contains "$(git berth --version)" "berth "
git berth discard fix >/dev/null
assert_eq "$(json_logged git berth --json list)" "[]"

# Outside a git repository, `berth new` refuses with not_a_repository and creates nothing.
. "$(dirname "$0")/common.sh"
mkdir -p "$T/plain/sub"
echo data >"$T/plain/file"
cd "$T/plain/sub"
before=$(find "$T" -path "$T/tmp" -prune -o -print | sort | sha256sum)

out=$(expect_error not_a_repository 1 berth --json new x)
assert_contains "$(jq -r .error.message <<<"$out")" "$T/plain/sub"
not 1 berth new x >/dev/null
assert_contains "$(last_stderr)" "not a git repository"
expect_error not_a_repository 1 berth --json -C "$T/plain" list >/dev/null
expect_error not_a_repository 1 berth --json -C "$T/nowhere" new x >/dev/null

assert_eq "$(find "$T" -path "$T/tmp" -prune -o -print | sort | sha256sum)" "$before" "files in the test dir"
[[ ! -e $XDG_DATA_HOME/berth && ! -e $HOME/berth ]]

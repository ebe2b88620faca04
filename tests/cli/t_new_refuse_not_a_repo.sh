# Outside a git repository, commands other than `new` refuse with not_a_repository and create
# nothing (`new` keeps such a folder as a plain folder: t_plain_*.sh); -C naming no directory is
# refused by `new` too.
. "$(dirname "$0")/common.sh"
mkdir -p "$T/plain/sub"
echo data >"$T/plain/file"
cd "$T/plain/sub"
before=$(find "$T" -path "$T/tmp" -prune -o -print | sort | sha256sum)

out=$(expect_error not_a_repository 1 berth --json list)
assert_contains "$(jq -r .error.message <<<"$out")" "$T/plain/sub"
assert_contains "$(jq -r .error.hint <<<"$out")" "plain folder"
not 1 berth status x >/dev/null
assert_contains "$(last_stderr)" "not a git repository"
expect_error not_a_repository 1 berth --json -C "$T/plain" list >/dev/null
expect_error not_a_repository 1 berth --json -C "$T/nowhere" new x >/dev/null
# Not the whole home directory, nor /.
expect_error not_a_repository 1 berth --json -C "$HOME" new x >/dev/null

assert_eq "$(find "$T" -path "$T/tmp" -prune -o -print | sort | sha256sum)" "$before" "files in the test dir"
[[ ! -e $XDG_DATA_HOME/berth && ! -e $HOME/berth ]]

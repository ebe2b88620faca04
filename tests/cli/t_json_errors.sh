# With --json, every failure prints {"error":{"code","message","hint"}} on stdout (and nothing
# else there), with the documented exit status.
. "$(dirname "$0")/common.sh"
mkdir -p "$T/plain"
make_repo app
berth new x >/dev/null

check() { # CODE STATUS ARGS...: a well-formed document with a one-line message, only that
  local out
  out=$(expect_error "$@")
  assert_eq "$(jq -c '.error | keys - ["code","message","hint","git"]' <<<"$out")" "[]" "error keys"
}
check not_found 4 berth --json path nope
check not_found 4 berth --json status nope
check not_found 4 berth --json discard nope
check not_found 4 berth --json restore nope
check invalid_name 2 berth --json new "a b"
check invalid_revision 4 berth --json new y --base nope
check name_taken 1 berth --json new x
check usage 2 berth --json frobnicate
check usage 2 berth --json new
check usage 2 berth --json new x --bogus-flag
check usage 2 berth --json -c nosuchkey=1 list
check usage 2 berth --json help frobnicate
check not_a_repository 1 berth --json -C "$T/plain" list
check not_a_repository 1 berth --json -C "$T/nowhere" list
# --json given after the command counts too.
check not_found 4 berth path nope --json

mkdir -p "$XDG_CONFIG_HOME/berth"
echo 'workspace_root = [' >"$XDG_CONFIG_HOME/berth/config.toml"
check config_invalid 2 berth --json list
assert_contains "$(jq -r .error.message <<<"$(not 2 berth --json list)")" config.toml
rm "$XDG_CONFIG_HOME/berth/config.toml"

# A non-ASCII name is refused with a valid UTF-8 document, not a crash.
check invalid_name 2 berth --json new "é"
check invalid_name 2 berth --json new $'\xff\xfe'

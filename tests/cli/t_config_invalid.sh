# A broken config file or value is refused with config_invalid (exit 2) and nothing changes.
. "$(dirname "$0")/common.sh"
make_repo app
berth new x >/dev/null
before=$(fingerprint)
mkdir -p "$XDG_CONFIG_HOME/berth"

echo 'branch_prefix = ' >"$XDG_CONFIG_HOME/berth/config.toml"
out=$(expect_error config_invalid 2 berth --json list)
assert_contains "$(jq -r .error.message <<<"$out")" "config.toml:1"
echo 'branch_prefix = 3' >"$XDG_CONFIG_HOME/berth/config.toml"
expect_error config_invalid 2 berth --json new y >/dev/null
echo 'branch_prefix = "no-slash"' >"$XDG_CONFIG_HOME/berth/config.toml"
expect_error config_invalid 2 berth --json new y >/dev/null
rm "$XDG_CONFIG_HOME/berth/config.toml"
expect_error config_invalid 2 berth --json -c branch_prefix=../ new y >/dev/null
expect_error usage 2 berth --json -c branch_prefix list >/dev/null
assert_unchanged "$before"

# Unknown keys are only warned about.
echo 'no_such_key = 1' >"$XDG_CONFIG_HOME/berth/config.toml"
berth list >/dev/null 2>"$TMPDIR/err"
assert_contains "$(cat "$TMPDIR/err")" "unknown key 'no_such_key'"

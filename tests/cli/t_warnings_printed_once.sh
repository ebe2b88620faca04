# No warning is printed twice: a set-up warning used to be shown as it happened and again with the
# command's result (with --json: as a JSON event, then again as text).
. "$(dirname "$0")/common.sh"

make_repo app
mkdir -p "$XDG_CONFIG_HOME/berth"
echo 'no_such_key = 1' >"$XDG_CONFIG_HOME/berth/config.toml"

# count_lines TEXT FILE: how many lines of FILE contain TEXT.
count_lines() { grep -cF -- "$1" "$2" || true; }

berth -c setup.clone=README.md new x >/dev/null 2>"$T/err"
assert_eq "$(count_lines "setup.clone: 'README.md' skipped" "$T/err")" 1 "set-up warning lines"
assert_eq "$(count_lines "unknown key 'no_such_key'" "$T/err")" 1 "config warning lines"

berth -c setup.clone=README.md --json new y >"$T/out" 2>"$T/err"
assert_eq "$(count_lines "setup.clone: 'README.md' skipped" "$T/err")" 1 "set-up warning lines (json)"
jq -e .path "$T/out" >/dev/null

berth discard x >/dev/null 2>"$T/err"
assert_eq "$(count_lines "unknown key 'no_such_key'" "$T/err")" 1 "config warning lines (discard)"

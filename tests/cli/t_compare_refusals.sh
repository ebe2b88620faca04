# compare refuses what it cannot compare, with nothing changed and nothing written: a missing
# name (not_found, 4), a single workspace or no name (usage, 2), a name given twice, a fork whose
# attempts are all gone (not_found), an --html file in a folder that does not exist (io_error, 1,
# no page), --test without a command after `--`.
. "$(dirname "$0")/common.sh"
make_repo app
berth new solo >/dev/null
berth new fix-1 >/dev/null
echo x >>"$(berth path fix-1)/README.md"
berth new fix-2 >/dev/null
before=$(fingerprint)

expect_error not_found 4 berth --json compare nope >/dev/null
expect_error not_found 4 berth --json compare fix-1 nope >/dev/null
err=$(expect_error usage 2 berth --json compare solo)
assert_contains "$(jq -r .error.hint <<<"$err")" "two or more names or a fork's task"
expect_error usage 2 berth --json compare >/dev/null
expect_error usage 2 berth --json compare fix-1 fix-1 >/dev/null

# A fork whose record is there but whose attempts were all picked or discarded.
forks="$(git rev-parse --path-format=absolute --git-common-dir)/berth/forks/gone"
mkdir -p "$forks"
cat >"$forks/fork.json" <<JSON
{"version": 1, "task": "gone", "base": "$(git rev-parse HEAD)", "attempts": 2, "created": 0,
 "command": [], "runs": []}
JSON
err=$(expect_error not_found 4 berth --json compare gone)
assert_contains "$(jq -r .error.message <<<"$err")" "no attempts left"
rm -r "$forks"

# --html into a folder that does not exist: refused before anything is looked at.
err=$(expect_error io_error 1 berth --json compare fix --html "$T/no/such/dir/page.html")
assert_contains "$(jq -r .error.message <<<"$err")" "does not exist"
[[ ! -e $T/no ]]
expect_error io_error 1 berth --json compare fix --html "$T" >/dev/null

# --test needs its command after `--`; --timeout and --sandbox go with --test.
expect_error usage 2 berth --json compare fix --test >/dev/null
expect_error usage 2 berth --json compare fix -- true >/dev/null
expect_error usage 2 berth --json compare fix --timeout 5 >/dev/null
# An unknown option: no hint to put "the command" after `--` (the names are not a command).
err=$(expect_error usage 2 berth --json compare fix --bogus)
assert_not_contains "$(jq -r .error.hint <<<"$err")" "after \`--\`"

assert_unchanged "$before"

#!/usr/bin/env bash
# Usage errors say what to do: a command's options given to `run` without `--` get the line back
# with `--` in its place; `--sandbox bwrap` (which would make bwrap the NAME) is refused with the
# hint `--sandbox=bwrap`; `run --help` shows `--sandbox[=MECHANISM]` and that `off` is a value.
# Nothing changes on a refusal.
. "$(dirname "$0")/common.sh"
make_repo app
berth new x >/dev/null
before=$(fingerprint)

not 2 berth run x ls -la >/dev/null
assert_contains "$(last_stderr)" 'put the command after `--`'
assert_contains "$(last_stderr)" '`berth run x -- ls -la`'
# An option before NAME with its value, and a word that needs quoting.
not 2 berth run --timeout 5 x git log --format='%h %s' >/dev/null
assert_contains "$(last_stderr)" "\`berth run --timeout 5 x -- git log '--format=%h %s'\`"
out=$(expect_error usage 2 berth --json run x ls -la)
assert_contains "$(jq -r .error.hint <<<"$out")" '`berth run x -- ls -la`'
# berth's options after NAME stay before `--`.
not 2 berth run x --timeout 5 ls -la >/dev/null
assert_contains "$(last_stderr)" '`berth run x --timeout 5 -- ls -la`'
not 2 berth fork f -n 2 ls -la >/dev/null
assert_contains "$(last_stderr)" '`berth fork f -n 2 -- ls -la`'
# The command's options that are also berth's (-c, -C, --json, -q) are the command's, never
# taken by berth: `sh -c` was read as a config override, `git -C` as berth's directory, and
# `echo --json` ran echo alone with berth's output in JSON.
# (Not through the test's `berth`, which would expect a JSON document of `echo --json`.)
for line in "sh -c true" "git -C / status" "echo --json" "npm test -q"; do
  # shellcheck disable=SC2086
  not 2 "$BERTH_BIN" run x $line >/dev/null
  assert_contains "$(last_stderr)" "\`berth run x -- $line\`"
  assert_contains "$(last_stderr)" "[usage]"
done

# --sandbox takes its mechanism only joined by '='.
for line in "run --sandbox bwrap x -- true" "run x --sandbox bwrap -- true" "run --sandbox bwrap x true"; do
  # shellcheck disable=SC2086
  not 2 berth $line >/dev/null
  assert_contains "$(last_stderr)" '`--sandbox=bwrap`'
  assert_contains "$(last_stderr)" "[usage]"
done
out=$(expect_error usage 2 berth --json shell x --sandbox best-effort)
assert_contains "$(jq -r .error.hint <<<"$out")" '`--sandbox=best-effort`'
assert_unchanged "$before"

# A value refused: the option as it is typed, what it takes, and its command's help; never the
# `--` suggestion (that is for a command's words taken for berth's options).
not 2 berth fork z -n abc >/dev/null
assert_contains "$(last_stderr)" "berth: -n/--attempts takes a whole number, not 'abc' [usage]"
assert_contains "$(last_stderr)" 'hint: `berth fork --help` shows what each option takes'
not 2 berth fork z >/dev/null
assert_contains "$(last_stderr)" "berth: -n/--attempts is required [usage]"
not 2 berth run x --timeout soon -- true >/dev/null
assert_contains "$(last_stderr)" "berth: --timeout takes a number, not 'soon' [usage]"
out=$(expect_error usage 2 berth --json diff x --color=sometimes)
assert_contains "$(jq -r .error.message <<<"$out")" "--color: sometimes not in {auto,always,never}"
assert_not_contains "$(jq -r .error.hint <<<"$out")" " -- "
not 2 berth new >/dev/null
assert_contains "$(last_stderr)" "berth: NAME is required [usage]"
assert_unchanged "$before"

help=$(berth run --help)
assert_contains "$help" "--sandbox[=MECHANISM]"
assert_not_contains "$help" "{landlock}"
assert_contains "$(grep -- --sandbox <<<"$help")" "off"
# off is a value: the command runs unconfined.
assert_eq "$(berth run x --sandbox=off -- echo ran)" ran
assert_eq "$(berth run x echo ran)" ran # a command without options needs no `--`
echo "ok: usage errors say what to do"

# The schema check of the behaviour tests (common.sh logs every --json call, tests/schema_check.py
# checks the documents against docs/schema/ when the test ends) can fail: a document that breaks
# its schema fails the test that made berth print it, naming the call, the schema file and where
# in the document and the schema it broke. berth's own documents pass.
. "$(dirname "$0")/common.sh"
[[ ${BERTH_SCHEMA_CHECK:-1} != 0 ]] || skip "BERTH_SCHEMA_CHECK=0"
check() { "$SCHEMA_PYTHON" "$SOURCE_DIR/tests/schema_check.py" --document "$@"; }

make_repo app
ws=$(berth new x)
echo change >"$ws/README.md"
status=$(berth --json status x)
check status - <<<"$status"
# The contract is closed: an unknown field, also inside an object shared through $defs.
not 1 check status - <<<"$(jq '.extra = 1' <<<"$status")" >/dev/null
assert_contains "$(last_stderr)" "'extra' was unexpected"
not 1 check status - <<<"$(jq '.changes.renamed = 1' <<<"$status")" >/dev/null
assert_contains "$(last_stderr)" 'at $.changes'
# A state or code the code never gives, a missing field, a wrong type, a short commit.
not 1 check status - <<<"$(jq '.state = "sleeping"' <<<"$status")" >/dev/null
assert_contains "$(last_stderr)" "'sleeping' is not one of"
not 1 check status - <<<"$(jq 'del(.head)' <<<"$status")" >/dev/null
assert_contains "$(last_stderr)" "'head' is a required property"
not 1 check status - <<<"$(jq '.changes.staged = "1"' <<<"$status")" >/dev/null
not 1 check status - <<<"$(jq '.base = "abc123"' <<<"$status")" >/dev/null

discard=$(berth --json discard x)
check discard - <<<"$discard"
not 1 check discard - <<<"$(jq '.snapshot.extra = 1' <<<"$discard")" >/dev/null
# A recorded workspace has a recorded state, never one that only `list` shows.
not 1 check discard - <<<"$(jq '.workspace.state = "missing"' <<<"$discard")" >/dev/null

err=$(expect_error not_found 4 berth --json path nosuch)
check error - <<<"$err"
not 1 check error - <<<"$(jq '.error.code = "no_such_code"' <<<"$err")" >/dev/null
not 1 check error - <<<"$(jq '.error.message = "two\nlines"' <<<"$err")" >/dev/null
not 1 check error - <<<"$(jq 'del(.error.hint)' <<<"$err")" >/dev/null

# End to end: a test whose berth prints a bad document fails at its end, with the reason.
mkdir -p "$T/fake"
cat >"$T/fake/berth" <<'SH'
#!/bin/sh
printf '%s\n' "$FAKE_OUT"
[ -z "$FAKE_ERR" ] || printf '%s\n' "$FAKE_ERR" >&2
exit "${FAKE_STATUS:-0}"
SH
chmod +x "$T/fake/berth"
cat >"$T/fake/t_inner.sh" <<SH
. "$SOURCE_DIR/tests/cli/common.sh"
berth --json -C somewhere path x >/dev/null || true
echo "the test itself passed"
SH
inner() {
  BERTH_BIN=$T/fake/berth bash "$T/fake/t_inner.sh" 2>&1
}
out=$(FAKE_OUT='{"name": "x", "path": "/p"}' inner)
assert_eq "$out" "the test itself passed"
out=$(FAKE_OUT='{"name": "x", "path": 7}' not 1 inner)
assert_contains "$out" "berth --json -C somewhere path x (exit 0): its document does not match docs/schema/path.json: at \$.path: 7 is not of type 'string'"
assert_contains "$out" "FAIL: t_inner.sh: a --json document does not match its schema"
# A failure must come with an error document, and an error document with a failure.
out=$(FAKE_OUT='{"name": "x", "path": "/p"}' FAKE_STATUS=4 not 1 inner)
assert_contains "$out" "exit status 4 without an error document"
out=$(FAKE_OUT='{"error": {"code": "not_found", "message": "m", "hint": ""}}' not 1 inner)
assert_contains "$out" "an error document with exit status 0"
out=$(FAKE_OUT='' FAKE_STATUS=1 not 1 inner)
assert_contains "$out" "printed no JSON document"
# new's set-up events on stderr are checked too.
sed -i 's/ path x / new x /' "$T/fake/t_inner.sh"
new_doc=$(jq -c 'del(.invalid, .head, .head_branch, .ahead, .behind, .dirty, .changes,
  .lock_reason, .problem) + {state: "ready", setup: {copies: [], commands: [], submodules: [],
  warnings: [], failed: false}, warnings: []}' <<<"$status")
out=$(FAKE_OUT=$new_doc FAKE_ERR='{"event": "copied", "subject": "a", "detail": "copy", "bytes": 1, "exit_status": 0}' inner)
assert_eq "$out" '{"event": "copied", "subject": "a", "detail": "copy", "bytes": 1, "exit_status": 0}
the test itself passed'
out=$(FAKE_OUT=$new_doc FAKE_ERR='{"event": "teleported"}' not 1 inner)
assert_contains "$out" "set-up event on stderr line 1 does not match docs/schema/new-event.json"

# The prose reference and the schemas agree: every example of docs/json.md matches its schema,
# and every schema is linked from it.
"$SCHEMA_PYTHON" "$SOURCE_DIR/tests/schema_check.py" --examples "$SOURCE_DIR/docs/json.md"
for schema in "$SOURCE_DIR"/docs/schema/*.json; do
  assert_contains "$(cat "$SOURCE_DIR/docs/json.md")" "(schema/${schema##*/})"
done

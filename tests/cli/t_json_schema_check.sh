# The schema check of the behaviour tests (common.sh logs every --json call, tests/schema_check.py
# checks the documents against docs/schema/ when the test ends) can fail: a document that breaks
# its schema fails the test that made berth print it, naming the call, the schema file and where
# in the document and the schema it broke. berth's own documents pass, and so do the examples of
# docs/json.md.
. "$(dirname "$0")/common.sh"
[[ ${BERTH_SCHEMA_CHECK:-1} != 0 ]] || skip "BERTH_SCHEMA_CHECK=0"
check() { "$SCHEMA_PYTHON" "$SOURCE_DIR/tests/schema_check.py" "$@"; }

make_repo app
ws=$(berth new x)
echo change >"$ws/README.md"
berth --json status x >"$T/status"
berth --json discard x >"$T/discard"
not 4 berth --json path nosuch >"$T/error"
check --document status "$T/status" discard "$T/discard" error "$T/error"

# Broken copies, one way each (one checker process for all): the contract is closed (an unknown
# field, also inside an object shared through $defs), states and codes are the code's, fields
# are required, types and commit names are checked, and a recorded workspace has a recorded
# state (never one that only `list` shows).
bad() { jq "$3" "$T/$2" >"$T/bad-$1"; }
bad extra status '.extra = 1'
bad changes status '.changes.renamed = 1'
bad state status '.state = "sleeping"'
bad head status 'del(.head)'
bad type status '.changes.staged = "1"'
bad base status '.base = "abc123"'
bad snapshot discard '.snapshot.extra = 1'
bad recorded discard '.workspace.state = "missing"'
bad code error '.error.code = "no_such_code"'
bad lines error '.error.message = "two\nlines"'
bad hint error 'del(.error.hint)'
not 1 check --document status "$T/bad-extra" status "$T/bad-changes" status "$T/bad-state" \
  status "$T/bad-head" status "$T/bad-type" status "$T/bad-base" discard "$T/bad-snapshot" \
  discard "$T/bad-recorded" error "$T/bad-code" error "$T/bad-lines" error "$T/bad-hint" >/dev/null
err=$(last_stderr)
expect() { assert_contains "$err" "$T/bad-$1 does not match docs/schema/$2.json: $3"; }
expect extra status "at \$: Unevaluated properties are not allowed ('extra' was unexpected)"
expect changes status "at \$.changes: Additional properties are not allowed ('renamed' was unexpected)"
expect state status "at \$.state: 'sleeping' is not one of"
expect head status "at \$: 'head' is a required property"
expect type status "at \$.changes.staged: '1' is not of type 'integer'"
expect base status "at \$.base: 'abc123' does not match"
expect snapshot discard "at \$.snapshot: Additional properties are not allowed ('extra' was unexpected)"
expect recorded discard "at \$.workspace.state: 'missing' is not one of"
expect code error "at \$.error.code: 'no_such_code' is not one of"
expect lines error "at \$.error.message: 'two\\nlines' does not match"
expect hint error "at \$.error: 'hint' is a required property"
assert_eq "$(grep -c 'does not match docs/schema' <<<"$err")" 11 "violations"

# End to end: a test whose berth prints bad documents fails at its end, with the reasons.
mkdir -p "$T/fake"
cat >"$T/fake/berth" <<'SH'
#!/bin/sh
printf '%s\n' "$FAKE_OUT"
[ -z "$FAKE_ERR" ] || printf '%s\n' "$FAKE_ERR" >&2
exit "${FAKE_STATUS:-0}"
SH
chmod +x "$T/fake/berth"
new_doc=$(jq -c 'del(.invalid, .head, .head_branch, .ahead, .behind, .dirty, .changes,
  .lock_reason, .problem, .synced) + {state: "ready", setup: {copies: [], commands: [], submodules: [],
  warnings: [], failed: false}, warnings: []} | .workspace = del(.setup, .warnings)' "$T/status")
good_event='{"type": "copied", "workspace": "good", "timestamp": "2026-01-01T00:00:00.000Z", "time": "2026-01-01T00:00:00.000Z", "subject": "a", "detail": "copy", "bytes": 1}'
cat >"$T/fake/t_inner.sh" <<SH
. "$SOURCE_DIR/tests/cli/common.sh"
FAKE_OUT='{"name": "x", "path": "/p"}' berth --json -C somewhere path good
FAKE_OUT='{"name": "x", "path": 7}' berth --json -C somewhere path x
FAKE_OUT='{"name": "x", "path": "/p"}' FAKE_STATUS=4 berth --json path four || true
FAKE_OUT='{"error": {"code": "not_found", "message": "m", "hint": ""}}' berth --json path zero
FAKE_OUT='' FAKE_STATUS=1 berth --json path empty || true
FAKE_OUT='$new_doc' FAKE_ERR='$good_event' berth --json new good
FAKE_OUT='$new_doc' FAKE_ERR='{"type": "teleported"}' berth --json new bad
FAKE_OUT='$new_doc' FAKE_ERR='berth: warning: plain' berth --json new plain
echo "the test itself passed"
SH
status=0
out=$(BERTH_BIN=$T/fake/berth bash "$T/fake/t_inner.sh" 2>&1) || status=$?
assert_eq "$status" 1 "the inner test's exit status"
assert_contains "$out" "the test itself passed"
assert_contains "$out" "berth --json -C somewhere path x (exit 0): its document does not match docs/schema/path.json: at \$.path: 7 is not of type 'string'"
assert_contains "$out" "berth --json path four (exit 4): exit status 4 without an error document"
assert_contains "$out" "berth --json path zero (exit 0): an error document with exit status 0"
assert_contains "$out" "berth --json path empty (exit 1): printed no JSON document"
assert_contains "$out" "berth --json new bad (exit 0): event on stderr line 1 does not match docs/schema/event.json"
assert_contains "$out" "berth --json new plain (exit 0): stderr line 1 is not an event: 'berth: warning: plain'"
assert_contains "$out" "FAIL: t_inner.sh: a --json document does not match its schema"
assert_not_contains "$out" "path good"
assert_not_contains "$out" "new good"
# (stderr passes through the log unchanged)
assert_contains "$out" "$good_event"

# The schemas are valid 2020-12 schemas, and the prose reference agrees with them: every example
# of docs/json.md matches its schema,
# and every schema is linked from it.
check --examples "$SOURCE_DIR/docs/json.md"
for schema in "$SOURCE_DIR"/docs/schema/*.json; do
  assert_contains "$(cat "$SOURCE_DIR/docs/json.md")" "(schema/${schema##*/})"
done

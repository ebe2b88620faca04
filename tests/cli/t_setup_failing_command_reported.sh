# A failing setup command is reported with its output and exit code; later commands do not run;
# the workspace is kept and marked (setup_error in list and status).
. "$(dirname "$0")/common.sh"
make_repo app
mkdir -p "$XDG_CONFIG_HOME/berth"
cat >"$XDG_CONFIG_HOME/berth/config.toml" <<TOML
[setup]
run = ["echo building; echo 'missing dependency' >&2; exit 3", "touch '$T/second-ran'"]
TOML

# (Exit 6: made, but its set-up failed.)
status=0
json=$(berth --json new x 2>"$TMPDIR/events") || status=$?
assert_eq "$status" 6 "exit status"
ws=$(jq -r .path <<<"$json")
[[ -d $ws ]]
assert_eq "$(jq -r .setup.failed <<<"$json")" true
assert_eq "$(jq -r '.setup.commands[0].exit_status' <<<"$json")" 3
assert_contains "$(jq -r '.setup.commands[0].output' <<<"$json")" "building"
assert_contains "$(jq -r '.setup.commands[0].output' <<<"$json")" "missing dependency"
assert_eq "$(jq -r '.setup.commands[1].ran' <<<"$json")" false
[[ ! -e $T/second-ran ]]
grep "^{" "$TMPDIR/events" | jq -e -s 'any(.[]; .type == "output" and (.detail | contains("missing dependency")))' >/dev/null
grep "^{" "$TMPDIR/events" | jq -e -s 'any(.[]; .type == "command_finished" and .exit_status == 3)' >/dev/null

err=$(jq -r .setup_error <<<"$json")
assert_contains "$err" "exit 3"
assert_eq "$(berth --json list | jq -r '.[] | select(.name == "x") | .setup_error')" "$err"
assert_eq "$(berth --json status x | jq -r .setup_error)" "$err"
assert_eq "$(berth --json status x | jq -r .state)" ready

# In text mode the output is streamed and the failure said.
ws=$(berth new y 2>"$TMPDIR/err") || status=$?
assert_eq "$status" 6 "exit status"
[[ -d $ws ]]
assert_contains "$(cat "$TMPDIR/err")" "missing dependency"
assert_contains "$(cat "$TMPDIR/err")" "exit 3"

# Under --json every line berth writes on stderr is one JSON event with its type, the workspace
# and a timestamp (and `time`, its deprecated first name, the same value): warnings and notes too
# (`new --json` used to mix `berth: warning: ...` lines into its NDJSON set-up events, and a
# post-checkout hook's output), and an error adds an `error` event. `exit_status` only where a
# command ran.
. "$(dirname "$0")/common.sh"
make_repo app
printf '[nonsense]\nkey = 1\n' >.berth.toml # a config warning: unknown key
mkdir -p "$XDG_CONFIG_HOME/berth"
cat >"$XDG_CONFIG_HOME/berth/config.toml" <<'TOML'
[setup]
run = ["echo hello"]
TOML

# The user's post-checkout hook prints on both streams (git sends its stdout to stderr): its
# output is an `output` event too, never a bare line among the events.
printf '#!/bin/sh\necho "hook on stderr" >&2\necho "hook on stdout"\n' >.git/hooks/post-checkout
chmod +x .git/hooks/post-checkout

berth --json new x >/dev/null 2>"$T/events"
jq -e -s 'any(.[]; .type == "output" and .subject == "post-checkout hook"
  and (.detail | contains("hook on stderr")) and (.detail | contains("hook on stdout")))' \
  "$T/events" >/dev/null
# Every line an object with type, workspace and timestamp (and time, the same).
while IFS= read -r line; do
  jq -e 'type == "object" and (.type | type) == "string" and .workspace == "x"
    and (.timestamp | test("^[0-9-]{10}T[0-9:]{8}[.][0-9]{3}Z$")) and .time == .timestamp' \
    <<<"$line" >/dev/null ||
    { echo "not an event: $line" >&2; exit 1; }
done <"$T/events"
jq -e -s 'any(.[]; .type == "warning" and (.message | contains("unknown key")))' "$T/events" >/dev/null
jq -e -s 'any(.[]; .type == "command_finished" and .exit_status == 0)' "$T/events" >/dev/null
jq -e -s 'all(.[]; (.type == "command_finished") == has("exit_status"))' "$T/events" >/dev/null
# Each warning once.
assert_eq "$(jq -s '[.[] | select(.type == "warning")] | length' "$T/events")" \
  "$(jq -s '[.[] | select(.type == "warning") | .message] | unique | length' "$T/events")"

# An error: the document on stdout, an event on stderr.
not 4 berth --json status nosuch >/dev/null
err=$(last_stderr)
jq -e -s 'length >= 1 and all(.[]; .workspace == "nosuch") and
  any(.[]; .type == "error" and .code == "not_found")' <<<"$err" >/dev/null

# A note (an ephemeral run removed): an event, not a `berth: ...` line.
berth --json run --ephemeral tmp -- true >/dev/null 2>"$T/events"
assert_not_contains "$(cat "$T/events")" "berth:"
jq -e -s 'any(.[]; .type == "note" and .workspace == "tmp" and (.message | contains("removed")))' \
  "$T/events" >/dev/null

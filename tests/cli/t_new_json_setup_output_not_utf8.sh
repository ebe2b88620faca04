# A set-up command whose output is not UTF-8 (a Latin-1 "café") does not break `new --json`: its
# progress events on standard error carry the bytes as U+FFFD, the workspace is made, and the
# document on standard output says so (it used to end in an `internal` error, exit 1).
. "$(dirname "$0")/common.sh"
make_repo app
mkdir -p "$XDG_CONFIG_HOME/berth"
cat >"$XDG_CONFIG_HOME/berth/config.toml" <<'TOML'
[setup]
run = ["printf 'caf\\351\\n'"]
TOML

out=$(berth --json new x 2>"$T/events")
assert_eq "$(jq -r '.name + " " + .state' <<<"$out")" "x ready"
assert_eq "$(jq -r '.setup.commands[0].output' <<<"$out")" $'caf\xef\xbf\xbd'
# One well-formed event per line, the output among them with the byte replaced.
jq -e . "$T/events" >/dev/null
assert_eq "$(jq -r 'select(.type == "output") | .detail' "$T/events")" $'caf\xef\xbf\xbd'
assert_eq "$(jq -r 'select(.type == "command_finished") | .exit_status' "$T/events")" 0
assert_eq "$(berth --json status x | jq -r .state)" ready

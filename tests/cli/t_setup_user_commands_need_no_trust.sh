# Setup commands from the user's own config (or environment, or flags) run without trust, in the
# new workspace, with berth's environment.
. "$(dirname "$0")/common.sh"
make_repo app
mkdir -p "$XDG_CONFIG_HOME/berth"
cat >"$XDG_CONFIG_HOME/berth/config.toml" <<TOML
[setup]
run = ["printf '%s|%s|%s|%s\\\\n' \"\$PWD\" \"\$BERTH_NAME\" \"\$BERTH_WORKSPACE\" \"\$BERTH_PROJECT\" >'$T/env'", "test -n \"\$BERTH_PORT\""]
TOML

ws=$(berth new x 2>/dev/null)
assert_eq "$(cat "$T/env")" "$ws|x|$ws|$PWD"

# From the environment: one command per line.
BERTH_SETUP_RUN=$'touch one\ntouch two' berth new y >/dev/null 2>&1
[[ -e $(berth path y)/one && -e $(berth path y)/two ]]
# From flags: each -c adds one.
berth -c 'setup.run=touch three' -c 'setup.run=touch four' new z >/dev/null 2>&1
[[ -e $(berth path z)/three && -e $(berth path z)/four ]]

# Config layers: built-in < user file < repository .berth.toml < BERTH_* environment < -c flag;
# `berth config` shows each effective value and where it came from.
. "$(dirname "$0")/common.sh"
make_repo app
source_of() { berth --json "$@" config | jq -r '.branch_prefix | "\(.value) \(.source)"'; }

assert_eq "$(source_of)" "berth/ built-in"
mkdir -p "$XDG_CONFIG_HOME/berth"
echo 'branch_prefix = "user/"' >"$XDG_CONFIG_HOME/berth/config.toml"
assert_eq "$(source_of)" "user/ user"
assert_eq "$(berth --json config | jq -r .branch_prefix.where)" "$XDG_CONFIG_HOME/berth/config.toml"
echo 'branch_prefix = "repo/"' >.berth.toml
git add .berth.toml && git commit -q -m "berth config"
assert_eq "$(source_of)" "repo/ repository"
assert_eq "$(BERTH_BRANCH_PREFIX=env/ source_of)" "env/ environment"
assert_eq "$(BERTH_BRANCH_PREFIX=env/ source_of -c branch_prefix=flag/)" "flag/ flag"

text=$(BERTH_BRANCH_PREFIX=env/ berth config)
assert_contains "$(head -1 <<<"$text")" KEY
assert_contains "$(grep '^branch_prefix' <<<"$text")" "env/"
assert_contains "$(grep '^branch_prefix' <<<"$text")" "environment (BERTH_BRANCH_PREFIX)"
assert_contains "$(grep '^workspace_root' <<<"$text")" "$HOME/berth/app-"

# The effective value is the one used.
ws=$(BERTH_BRANCH_PREFIX=env/ berth -c branch_prefix=flag/ new a)
assert_eq "$(git -C "$ws" symbolic-ref --short HEAD)" flag/a
ws=$(berth new b)
assert_eq "$(git -C "$ws" symbolic-ref --short HEAD)" repo/b

# `berth gc` without --older-than: a workspace with no change is idle once unused for
# gc.older_than (7d by default; set in the repository's .berth.toml, the environment or -c), and
# the reason says for how long ("under a minute", not seconds: the real run's reason a moment
# later is the same). Younger, or with any change (a commit, an untracked file), it stays.
# --older-than wins over the configuration.
. "$(dirname "$0")/common.sh"
make_repo app

berth new quiet >/dev/null
edited=$(berth new edited)
echo draft >"$edited/draft.txt"
committed=$(berth new committed)
(cd "$committed" && commit_file c.txt mine)
sleep 2

names() { jq -r '[.removed[] | select(.kind == "workspace") | .name] | join(" ")' <<<"$1"; }
# The default, 7 days: nothing is idle yet.
assert_eq "$(names "$(berth --json gc --dry-run)")" "" "with the default 7d"
assert_eq "$(names "$(BERTH_GC_OLDER_THAN=1h berth --json gc --dry-run)")" "" "with 1h"
printf '[gc]\nolder_than = "1s"\n' >.berth.toml
echo .berth.toml >>.git/info/exclude
dry=$(berth --json gc --dry-run)
assert_eq "$(names "$dry")" "quiet" "with gc.older_than = 1s in .berth.toml"
assert_contains "$(jq -r '.removed[0].reason' <<<"$dry")" "no change, unused for "
assert_eq "$(jq -r '.removed[0].reason' <<<"$dry")" "no change, unused for under a minute"
assert_eq "$(names "$(berth --json gc --dry-run --older-than 1d)")" "" "--older-than wins"
out=$(berth --json gc)
assert_eq "$(names "$out")" "quiet"
assert_eq "$(berth --json list | jq -r '[.[].name] | sort | join(" ")')" "committed edited"
assert_eq "$(cat "$edited/draft.txt")" draft

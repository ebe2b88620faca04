#!/usr/bin/env bash
# discard, restore, then discard again with nothing changed: the second discard is in the trash
# with its own time (the newest snapshot says "just now"), not folded into the first one's; the
# first snapshot stays as it was. (A snapshot a killed discard of this same workspace left is
# still reused: t_discard_killed_at_each_git_call.)
. "$(dirname "$0")/common.sh"
make_repo app
berth new x >/dev/null
echo work >"$(berth path x)/work.txt"
berth discard x >/dev/null
first=$(berth --json restore --list x | jq -r '.[0].ref')
sleep 1.1 # (snapshot times are in seconds)
berth restore x >/dev/null
berth discard x >/dev/null
json=$(berth --json restore --list x)
assert_eq "$(jq length <<<"$json")" 2 "snapshots of x"
assert_eq "$(jq -r '.[1].ref' <<<"$json")" "$first" "the first snapshot, kept"
newest=$(jq -r '.[0].ref' <<<"$json")
[[ $newest != "$first" ]] || { echo "the second discard reused the first snapshot" >&2; false; }
assert_eq "$(git show "$newest:work.txt")" work

# `restore --list NAME@TIME` (or the ref) lists that one snapshot; a bad TIME is refused.
spec=$(jq -r '.[1].spec' <<<"$json")
assert_eq "$(berth --json restore --list "$spec" | jq -r '[.[].ref] | join(",")')" "$first"
assert_eq "$(berth --json restore --list "$first" | jq -r '[.[].ref] | join(",")')" "$first"
expect_error not_found 4 berth --json restore --list x@1 >/dev/null
expect_error bad_snapshot 2 berth --json restore --list x@abc >/dev/null
# `trash list` takes the same: NAME@TIME, and a name that is none is refused by both.
assert_eq "$(berth --json trash list "$spec" | jq -r '[.snapshots[].ref] | join(",")')" "$first"
expect_error not_found 4 berth --json trash list x@1 >/dev/null
expect_error invalid_name 2 berth --json restore --list ../x >/dev/null
expect_error invalid_name 2 berth --json trash list ../x >/dev/null

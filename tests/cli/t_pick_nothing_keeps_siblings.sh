#!/usr/bin/env bash
# pick of an attempt with no change lands nothing, so it discards nothing either: its siblings
# (one holding real work) stay attempts of the fork, as they were; exit 0 with a warning.
. "$(dirname "$0")/common.sh"
make_repo app
berth fork em -n 3 >/dev/null
echo "real work" >"$(berth path em-2)/work.txt"
head=$(git rev-parse HEAD)
out=$(berth --json pick em-1 2>"$T/err")
assert_eq "$(jq -r .accepted.empty <<<"$out")" true
assert_eq "$(jq -c '[(.discarded | length), .kept]' <<<"$out")" '[0,["em-2","em-3"]]'
assert_contains "$(cat "$T/err")" "nothing landed"
assert_eq "$(git rev-parse HEAD)" "$head"
assert_eq "$(cat "$(berth path em-2)/work.txt")" "real work"
list=$(berth --json list)
assert_eq "$(jq -r '[.[] | select(.fork == "em") | .name] | join(",")' <<<"$list")" "em-1,em-2,em-3"
# The text says it too, and then a pick of the attempt with work goes as usual.
assert_contains "$(berth pick em-3 2>&1)" "sibling attempts stay as they were"
out=$(berth --json pick em-2)
assert_eq "$(jq -r '[.discarded[].workspace.name] | join(",")' <<<"$out")" "em-1,em-3"
assert_eq "$(git show HEAD:work.txt 2>/dev/null || cat work.txt)" "real work"

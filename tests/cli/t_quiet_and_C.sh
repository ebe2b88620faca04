# -C DIR runs berth as if started there; --quiet prints only what the command produces; global
# options go before or after the command.
. "$(dirname "$0")/common.sh"
make_repo app
cd "$T"
ws=$(berth -C app new x)
assert_eq "$(berth -C app/src/lib path x)" "$ws"
assert_eq "$(berth path x -C app)" "$ws"
assert_eq "$(berth -C "$ws" --json list | jq -r '.[].name')" x
assert_eq "$(berth list --json -C app | jq length)" 1
not 1 berth -C nowhere list >/dev/null

cd app
assert_eq "$(berth --quiet new y 2>&1)" "$(berth path y)"
echo wip >"$(berth path y)/wip.txt"
assert_eq "$(berth --quiet discard y 2>&1)" ""
assert_eq "$(berth -q discard x 2>&1)" ""
assert_eq "$(berth --quiet list 2>&1)" ""
assert_eq "$(berth --quiet restore --list 2>&1 | grep -c '^y@')" 1
not 4 berth --quiet path nope >/dev/null
assert_contains "$(last_stderr)" "no workspace"

# help and version.
assert_contains "$(berth --version)" "berth "
assert_eq "$(berth --json --version | jq -r '.version | type')" string
help=$(berth help)
for cmd in new list path status discard restore config; do assert_contains "$help" "  $cmd "; done
assert_contains "$(berth help new)" "--base"
assert_contains "$(berth new --help)" "--owner"
not 2 berth >/dev/null

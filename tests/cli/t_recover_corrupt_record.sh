# A record left "creating" by a dead process is rolled back by the next command; if it names
# another workspace's tree (corrupt, or edited by hand), the roll-back never deletes that tree:
# nothing is undone, and `berth doctor` names the record.
. "$(dirname "$0")/common.sh"
make_repo app
good=$(berth new good)
bad=$(berth new bad)
echo "good's work" >"$good/work.txt"
good_files=$(tree_digest "$good")
common=$(git rev-parse --path-format=absolute --git-common-dir)
record=$common/berth/workspaces/bad.json
# A holder that is surely dead: a process that has exited.
sh -c 'exit 0' &
dead=$!
wait "$dead"
jq --arg p "$good" --argjson pid "$dead" '.path = $p | .state = "creating" | .holder_pid = $pid | .holder_start = 1' \
  "$record" >"$T/bad.json"
mv "$T/bad.json" "$record"

berth list >/dev/null
assert_eq "$(tree_digest "$good")" "$good_files" "good's tree after recovery"
assert_eq "$(git -C "$good" rev-parse --abbrev-ref HEAD)" berth/good
assert_eq "$(git -C "$bad" rev-parse --abbrev-ref HEAD)" berth/bad
git rev-parse --verify -q refs/heads/berth/bad >/dev/null
not 1 berth doctor >/dev/null
assert_contains "$(cat "$TMPDIR/not.out")" "'bad'"
assert_eq "$(berth --json status good | jq -r .state)" ready

# accept --dry-run says what would land (files, strategy, target) and changes nothing: not the
# user's repository, not the workspace, not its record.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new x)
cd "$ws" && commit_file a.txt a "add a" && cd "$T/app"
echo uncommitted >>"$ws/README.md"
echo "unrelated user edit" >>src/main.c
before=$(fingerprint)
ws_before=$(fingerprint "$ws")

for strategy in apply merge squash ff rebase; do
  json=$(berth --json accept x --dry-run --strategy "$strategy")
  assert_eq "$(jq -r .dry_run <<<"$json")" true
  assert_eq "$(jq -r '[.files[].path] | join(" ")' <<<"$json")" "README.md a.txt" "$strategy: files"
  assert_eq "$(jq -r .target <<<"$json")" main
  out=$(berth accept x -n --strategy "$strategy")
  assert_contains "$out" "would"
  assert_contains "$out" "a.txt"
  assert_unchanged "$before"
  assert_unchanged "$ws_before" "$ws"
done
assert_eq "$(berth --json list | jq -r '.[0].state')" ready

# An agent rewrites its workspace's .git file to point at another repository: berth still acts on
# the right worktree (from its own registry), and never touches the other repository.
. "$(dirname "$0")/common.sh"
make_repo victim
victim_before=$(fingerprint)
make_repo app
ws=$(berth new x)
echo "agent work" >>"$ws/README.md"
echo "gitdir: $T/victim/.git" >"$ws/.git"

json=$(berth --json status x)
assert_eq "$(jq -c '[.head_branch, .changes.modified, .changes.untracked]' <<<"$json")" '["berth/x",1,0]'
assert_eq "$(jq -r .head <<<"$json")" "$(git rev-parse HEAD)"
assert_eq "$(berth --json list | jq -r '.[0].dirty')" true
assert_unchanged "$victim_before" "$T/victim"

berth discard x >/dev/null
assert_unchanged "$victim_before" "$T/victim"
[[ ! -e $ws ]]
assert_eq "$(berth --json list)" "[]"
ref=$(git for-each-ref --format='%(refname)' refs/berth/trash/x/)
assert_eq "$(git show "$ref:README.md" | tail -1)" "agent work"

ws=$(berth restore x)
assert_eq "$(tail -1 "$ws/README.md")" "agent work"
assert_eq "$(git -C "$ws" rev-parse --path-format=absolute --git-common-dir)" "$T/app/.git"
assert_unchanged "$victim_before" "$T/victim"

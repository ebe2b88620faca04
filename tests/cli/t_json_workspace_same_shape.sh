# new, restore and discard return the workspace the same way: a `workspace` object with the same
# fields (new also keeps them at the top, as before).
. "$(dirname "$0")/common.sh"
make_repo app
made=$(berth --json new x)
echo work >"$(berth path x)/w.txt"
gone=$(berth --json discard x)
back=$(berth --json restore x)
keys() { jq -c '.workspace | keys' <<<"$1"; }
assert_eq "$(keys "$made")" "$(keys "$gone")" "new's and discard's workspace fields"
assert_eq "$(keys "$back")" "$(keys "$made")" "restore's and new's workspace fields"
for doc in "$made" "$gone" "$back"; do
  assert_eq "$(jq -r '.workspace.name' <<<"$doc")" x
done
assert_eq "$(jq -r .workspace.path <<<"$made")" "$(jq -r .path <<<"$made")" "new: the same path at the top"

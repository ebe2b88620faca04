# `berth list --json` is an array with every documented field of every workspace.
. "$(dirname "$0")/common.sh"
make_repo app
assert_eq "$(berth --json list)" "[]"
assert_eq "$(berth list)" "no workspaces (create one with \`berth new NAME\`)"
head=$(git rev-parse HEAD)
a=$(berth new alpha --owner agent-1)
berth new beta >/dev/null

json=$(berth --json list)
assert_eq "$(jq -r 'map(.name) | join(",")' <<<"$json")" "alpha,beta"
for field in name branch base head ahead behind dirty changes path owner created last_used state lock_reason; do
  assert_eq "$(jq --arg f "$field" 'map(has($f)) | all' <<<"$json")" true "field $field in every entry"
done
alpha=$(jq '.[] | select(.name == "alpha")' <<<"$json")
assert_eq "$(jq -r .branch <<<"$alpha")" berth/alpha
assert_eq "$(jq -r .base <<<"$alpha")" "$head"
assert_eq "$(jq -r .path <<<"$alpha")" "$a"
assert_eq "$(jq -r .owner <<<"$alpha")" agent-1
assert_eq "$(jq -r .state <<<"$alpha")" ready
assert_eq "$(jq -r .ahead <<<"$alpha")" 0
assert_eq "$(jq -r .dirty <<<"$alpha")" false
[[ $(jq -r .created <<<"$alpha") =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$ ]]
[[ $(jq -r .last_used <<<"$alpha") =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$ ]]

# The human table shows the same workspaces, short base, owner and state.
text=$(berth list)
assert_contains "$(head -1 <<<"$text")" NAME
assert_contains "$(grep '^alpha ' <<<"$text")" "${head:0:10}"
assert_contains "$(grep '^alpha ' <<<"$text")" agent-1
assert_contains "$(grep '^beta ' <<<"$text")" clean
assert_contains "$(berth list --all | head -1)" BRANCH
assert_contains "$(berth list --all | grep '^alpha ')" berth/alpha

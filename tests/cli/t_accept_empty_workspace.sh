# Accepting a workspace with no change: exit 0, a clear message, nothing created (no commit, no
# staged change, no intent record), for every strategy; the workspace stays.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new x)
# Changes that cancel out are no change either.
echo tmp >>"$ws/README.md" && git -C "$ws" commit -q -am tmp && git -C "$ws" revert --no-edit HEAD >/dev/null
echo '*.log' >>"$(git rev-parse --git-common-dir)/info/exclude"
echo ignored >"$ws/debug.log"
before=$(fingerprint)

for strategy in apply merge squash ff rebase; do
  out=$(berth accept x --strategy "$strategy" 2>"$T/err")
  assert_contains "$out" "nothing to accept"
  assert_eq "$(cat "$T/err")" "" "stderr"
  assert_unchanged "$before"
  json=$(berth --json accept x --strategy "$strategy")
  assert_eq "$(jq -r .empty <<<"$json")" true
  assert_eq "$(jq -r .new_commit <<<"$json")" "$(git rev-parse HEAD)"
  assert_unchanged "$before"
done
assert_eq "$(berth --json list | jq -r '.[0].state')" ready

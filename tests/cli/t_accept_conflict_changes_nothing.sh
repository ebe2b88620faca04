# The change conflicts with the user's branch: accept exits 3 with error code conflict and the
# conflicting paths (in JSON too), and the user's tree, index, refs and the workspace are exactly
# as before, for every strategy and with the user's own uncommitted work around.
. "$(dirname "$0")/common.sh"
make_repo app 3
ws=$(berth new x)
echo agent >>"$ws/README.md"
echo agent >"$ws/src/main.c"
echo agent >"$ws/fresh.txt"
cd "$ws" && git add -A && git commit -q -m "agent work" && echo more >>files/0/f0.txt && cd "$T/app"
echo user >>README.md
echo user >src/main.c
git commit -q -am "user work on the same lines"
# The user's unrelated uncommitted work, staged and not.
echo mine >>files/1/f1.txt
echo staged >>files/2/f2.txt && git add files/2/f2.txt
echo scratch >scratch.txt
before=$(fingerprint)
ws_before=$(fingerprint "$ws")

for strategy in apply merge squash rebase; do
  out=$(expect_conflict berth --json accept x --strategy "$strategy")
  assert_eq "$(jq -r '.conflicts | sort | join(" ")' <<<"$out")" "README.md src/main.c" "$strategy: paths"
  assert_contains "$(jq -r .hint <<<"$out")" "berth sync x"
  assert_unchanged "$before"
  assert_unchanged "$ws_before" "$ws"
done
# ff: refused as well (the conflict is reported first; either way exit 3).
out=$(not 3 berth --json accept x --strategy ff)
[[ $(jq -r 'if (.conflicts | length) > 0 then "conflict" else .error.code end' <<<"$out") == conflict ||
  $(error_code "$out") == not_fast_forward ]]
assert_unchanged "$before"
assert_unchanged "$ws_before" "$ws"

# The human message lists the paths; --dry-run reports the conflict the same way.
out=$(not 3 berth accept x --strategy merge)
assert_contains "$out" "README.md"
assert_contains "$out" "src/main.c"
expect_conflict berth --json accept x --dry-run >/dev/null
assert_unchanged "$before"
assert_unchanged "$ws_before" "$ws"
[[ ! -e $(git rev-parse --git-common-dir)/berth/intents/main.json ]]

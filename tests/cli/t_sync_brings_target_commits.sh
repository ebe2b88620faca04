# `berth sync` without conflict merges the user's new commits into the workspace (the agent's
# uncommitted work committed first, kept intact); a second sync says up to date; --onto names
# another revision; an unknown one is refused with nothing changed.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new x)
echo agent >"$ws/agent.txt"
echo agent >>"$ws/README.md"
commit_file user.txt user "user moves on"
git tag v1
user_tip=$(git rev-parse HEAD)

json=$(berth --json sync x)
assert_eq "$(jq -r .up_to_date <<<"$json")" false
assert_eq "$(jq -r .onto <<<"$json")" "$user_tip"
git merge-base --is-ancestor "$user_tip" berth/x
assert_eq "$(cat "$ws/user.txt" "$ws/agent.txt")" "$(printf 'user\nagent')"
assert_eq "$(tail -n1 "$ws/README.md")" agent
assert_eq "$(git -C "$ws" status --porcelain --untracked-files=all)" ""
assert_contains "$(git log -1 --format=%s berth/x)" "berth sync"
# The review still shows only the agent's change.
assert_eq "$(berth diff x --name-only)" "$(printf 'README.md\nagent.txt')"
assert_contains "$(berth sync x)" "up to date"
assert_eq "$(berth --json sync x --onto v1 | jq -r .up_to_date)" true

before=$(fingerprint)
ws_before=$(fingerprint "$ws")
expect_error invalid_revision 4 berth --json sync x --onto no-such-rev >/dev/null
expect_error not_found 4 berth --json sync nobody >/dev/null
assert_unchanged "$before"
assert_unchanged "$ws_before" "$ws"

# The synced workspace lands as a fast-forward now.
berth accept x --strategy ff >/dev/null
assert_eq "$(cat agent.txt)" agent

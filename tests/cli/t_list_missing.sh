# A workspace whose directory vanished is listed as `missing`, not as an error, and can still be
# discarded (its commits are kept).
. "$(dirname "$0")/common.sh"
make_repo app
gone=$(berth new gone)
(cd "$gone" && commit_file saved.txt "committed work")
berth new here >/dev/null
rm -rf "$gone"

json=$(berth --json list)
assert_eq "$(jq -r '.[] | select(.name == "gone") | .state' <<<"$json")" missing
assert_eq "$(jq -r '.[] | select(.name == "here") | .state' <<<"$json")" ready
assert_contains "$(berth list | grep '^gone ')" missing
assert_eq "$(berth --json status gone | jq -r .state)" missing
assert_eq "$(berth path gone)" "$gone"

berth discard gone 2>"$TMPDIR/err" >/dev/null
assert_contains "$(cat "$TMPDIR/err")" "missing"
assert_eq "$(berth --json list | jq -r '.[].name')" here
git worktree list --porcelain | { ! grep -c "$gone" >/dev/null; }
ws=$(berth restore gone)
assert_eq "$(cat "$ws/saved.txt")" "committed work"

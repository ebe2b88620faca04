# The user moves their repository and does NOT run `git worktree repair`: the workspaces' .git
# files point at the old place. berth never deletes a workspace whose directory exists on such a
# verdict: discard is refused (record_mismatch, exit 5, nothing changed), list says "unlinked",
# doctor names it and `berth doctor --repair` re-links it, after which everything works.
. "$(dirname "$0")/common.sh"
make_repo proj
ws=$(berth new x)
(cd "$ws" && commit_file committed.txt "committed")
echo untracked >"$ws/u.txt"
files=$(tree_digest "$ws")

cd "$T"
mv proj proj2
cd proj2

assert_eq "$(berth --json list | jq -r '.[] | select(.name == "x") | .state')" unlinked
assert_eq "$(berth --json status x | jq -r .state)" unlinked
before=$(fingerprint)
out=$(expect_error record_mismatch 5 berth --json discard x)
assert_contains "$(jq -r .error.hint <<<"$out")" "berth doctor --repair"
expect_error record_mismatch 5 berth --json discard x --force >/dev/null
expect_error record_mismatch 5 berth --json discard x --force --no-trash >/dev/null
# diff and accept do not take it for a missing workspace either.
expect_error record_mismatch 5 berth --json diff x >/dev/null
expect_error record_mismatch 5 berth --json accept x >/dev/null
assert_unchanged "$before"
assert_eq "$(tree_digest "$ws")" "$files"

not 1 berth doctor >/dev/null
assert_contains "$(cat "$TMPDIR/not.out")" "doctor --repair"
berth doctor --repair >/dev/null
assert_eq "$(berth doctor)" "all good"
assert_eq "$(berth --json status x | jq -r '.state, .changes.untracked' | tr '\n' ' ')" "ready 1 "
assert_eq "$(git -C "$ws" rev-parse --abbrev-ref HEAD)" berth/x

berth discard x >/dev/null
[[ ! -e $ws ]]
ws2=$(berth restore x)
assert_eq "$(tree_digest "$ws2")" "$files"

# accept into a plain folder never overwrites a file the user changed there since the base:
# refused (plain_folder_changed, exit 5, the paths named, nothing changed); with --merge a
# mergeable text change is merged three-way; a conflict (or a binary) changes nothing (exit 3).
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/plain_helpers.sh"
F=$T/folder
make_folder "$F"
cd "$F"
ws=$(berth --json new agent | jq -r .workspace.path)
sed -i 's/^two$/TWO (agent)/' "$ws/src/lines.txt"
echo agent >>"$ws/readme.txt"
printf 'agent' >>"$ws/src/blob.bin"

# The user edits the same text file elsewhere in it, and the same binary.
sed -i 's/^six$/SIX (user)/' "$F/src/lines.txt"
printf 'user' >>"$F/src/blob.bin"
before=$(folder_digest "$F")
out=$(expect_error plain_folder_changed 5 berth --json accept agent --keep)
assert_eq "$(jq -c '.error.paths' <<<"$out")" '["src/blob.bin","src/lines.txt"]' "paths refused"
assert_folder_unchanged "$before" "$F" "the refused accept"
# --dry-run refuses the same way.
expect_error plain_folder_changed 5 berth --json accept agent --dry-run >/dev/null
# --strategy and --into name a branch to land on: a plain folder has none; refused, not ignored.
expect_error usage 2 berth --json accept agent --strategy squash >/dev/null
expect_error usage 2 berth --json accept agent --into main >/dev/null
assert_folder_unchanged "$before" "$F" "the refused --strategy and --into"

# --merge: the binary both changed does not merge: a conflict result, nothing changed.
out=$(expect_conflict berth --json accept agent --merge --keep)
assert_eq "$(jq -c .conflicts <<<"$out")" '["src/blob.bin"]' "conflicts"
assert_folder_unchanged "$before" "$F" "the conflicting accept"

# The user puts the binary back: the text change merges; readme (only the agent's) is written.
cp "$ws/src/blob.bin" "$F/src/blob.bin"
out=$(berth --json accept agent --merge --keep)
jq -e '.conflicts | length == 0' <<<"$out" >/dev/null
assert_eq "$(sed -n 2p "$F/src/lines.txt")" "TWO (agent)" "agent's line"
assert_eq "$(sed -n 6p "$F/src/lines.txt")" "SIX (user)" "user's line"
assert_eq "$(tail -n1 "$F/readme.txt")" agent "readme"

# A text conflict: both change the same line. Refused without --merge, exit 3 with it.
ws2=$(berth --json new again | jq -r .workspace.path)
sed -i 's/^four$/FOUR (agent)/' "$ws2/src/lines.txt"
sed -i 's/^four$/FOUR (user)/' "$F/src/lines.txt"
before=$(folder_digest "$F")
expect_error plain_folder_changed 5 berth --json accept again >/dev/null
out=$(expect_conflict berth --json accept again --merge)
assert_eq "$(jq -c .conflicts <<<"$out")" '["src/lines.txt"]' "text conflict"
not 3 berth accept again --merge >/dev/null
assert_folder_unchanged "$before" "$F" "the text conflict"
# The workspace is still there, ready.
assert_eq "$(berth --json status again | jq -r .state)" ready "state after the conflict"

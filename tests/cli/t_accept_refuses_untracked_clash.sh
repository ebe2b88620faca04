# The change adds a file the user has as an untracked (or ignored) file in their checkout: refused
# (exit 5, dirty_target), the user's file byte-identical and still untracked, nothing else changed.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new x)
echo agent >"$ws/notes.txt"
echo agent >>"$ws/README.md"
echo "my own notes" >notes.txt
before=$(fingerprint)
ws_before=$(fingerprint "$ws")

out=$(expect_error dirty_target 5 berth --json accept x --strategy apply)
assert_eq "$(jq -c .error.paths <<<"$out")" '["notes.txt"]'
expect_error dirty_target 5 berth --json accept x --strategy merge >/dev/null
assert_eq "$(cat notes.txt)" "my own notes"
assert_unchanged "$before"
assert_unchanged "$ws_before" "$ws"

# A file the user's checkout ignores (its own untracked .gitignore) is theirs too.
rm notes.txt
echo notes.txt >.gitignore
echo "ignored but mine" >notes.txt
before=$(fingerprint)
out=$(expect_error dirty_target 5 berth --json accept x --strategy apply)
assert_eq "$(jq -c .error.paths <<<"$out")" '["notes.txt"]'
assert_eq "$(cat notes.txt)" "ignored but mine"
assert_unchanged "$before"

# An ignored FILE where the change needs a folder is in the way too.
ws2=$(berth new y)
mkdir "$ws2/cache" && echo agent >"$ws2/cache/data.txt"
echo cache >>.gitignore
echo "my cache file" >cache
before=$(fingerprint)
out=$(expect_error dirty_target 5 berth --json accept y --strategy merge)
assert_eq "$(jq -c .error.paths <<<"$out")" '["cache/data.txt"]'
assert_eq "$(cat cache)" "my cache file"
assert_unchanged "$before"

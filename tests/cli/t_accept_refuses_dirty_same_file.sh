# accept when the user has uncommitted work on a file the change writes (modified, or only
# staged): refused with exit 5 dirty_target naming the files; the user's repository and the
# workspace are exactly as before, for every strategy.
. "$(dirname "$0")/common.sh"
make_repo app 3
ws=$(berth new x)
echo agent >>"$ws/src/main.c"
echo agent >>"$ws/README.md"
echo agent >"$ws/files/0/f0.txt"

echo mine >>src/main.c          # modified, unstaged
echo mine >>README.md && git add README.md # staged only
echo mine >>files/1/f1.txt      # unrelated
before=$(fingerprint)
ws_before=$(fingerprint "$ws")

for strategy in apply merge squash ff rebase; do
  out=$(expect_error dirty_target 5 berth --json accept x --strategy "$strategy")
  assert_eq "$(jq -r '.error.paths | sort | join(" ")' <<<"$out")" "README.md src/main.c" "$strategy: paths"
  assert_contains "$(jq -r .error.hint <<<"$out")" "commit or stash"
  assert_unchanged "$before"
  assert_unchanged "$ws_before" "$ws"
done

# The human message names the files too.
not 5 berth accept x >/dev/null
assert_contains "$(last_stderr)" "src/main.c"
assert_unchanged "$before"
assert_eq "$(berth --json list | jq -r '.[0].state')" ready

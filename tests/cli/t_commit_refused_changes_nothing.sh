# A commit or sync refused because git's index lock is in the way (a git at work in the workspace,
# or one that died) changes nothing: HEAD stays, the index and the files are as they were, and
# the error names the lock file. (HEAD used to move to the new commit while the index stayed
# behind, showing the reverse of the work, and doctor said all was well.)
. "$(dirname "$0")/common.sh"
make_repo app 3
ws=$(berth new w)
echo mod >>"$ws/README.md"
echo new >"$ws/n.txt"
lock=$(git -C "$ws" rev-parse --absolute-git-dir)/index.lock
touch "$lock"
before=$(fingerprint "$ws")
status_before=$(git -C "$ws" status --porcelain)

out=$(expect_error index_lock 1 berth --json commit w -m "my work")
assert_eq "$(jq -r '.error.paths[0]' <<<"$out")" "$lock"
assert_contains "$(jq -r .error.message <<<"$out")" "$lock"
assert_unchanged "$before" "$ws"
assert_eq "$(git -C "$ws" status --porcelain)" "$status_before" "the workspace's status"

# sync commits the agent's work first: refused the same way, nothing changed.
commit_file upstream.txt upstream
before=$(fingerprint "$ws")
out=$(expect_error index_lock 1 berth --json sync w)
assert_unchanged "$before" "$ws"
assert_eq "$(git -C "$ws" status --porcelain)" "$status_before" "the workspace's status after sync"

# Once the lock is gone, the same commit works and the index is level with it.
rm "$lock"
berth commit w -m "my work" >/dev/null
assert_eq "$(git -C "$ws" status --porcelain)" ""
assert_eq "$(git -C "$ws" log -1 --format=%s)" "my work"
assert_eq "$(berth doctor)" "all good"

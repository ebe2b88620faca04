# A tracked file in a workspace replaced by a FIFO (an agent's mkfifo): diff, commit, sync and
# accept refuse hostile_file naming it, change nothing and never hang; discard saves everything
# else to the trash (with a note that the FIFO held nothing), the name is free at once and the work
# comes back with restore. (Before: every command failed with git's "updating files failed",
# doctor said all good, and only `discard --force --no-trash` — losing the work — got out.)
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/hostile_helpers.sh"
make_repo app 3
ws=$(berth new w)
echo work >"$ws/work.txt"
rm "$ws/README.md"
mkfifo "$ws/README.md"
commit_file up.txt up 'user commit' # so that sync has something to bring in
before=$(fingerprint)

for cmd in "diff w" "diff w --stat" "commit w -m x" "sync w" "accept w"; do
  # shellcheck disable=SC2086 # the words of the command
  out=$(not 5 bounded --json $cmd)
  assert_eq "$(jq -r .error.code <<<"$out")" hostile_file "$cmd"
  assert_eq "$(jq -r '.error.paths[0]' <<<"$out")" README.md "$cmd"
  assert_contains "$(jq -r .error.hint <<<"$out")" "rm '$ws/README.md'"
done
assert_unchanged "$before"

out=$(bounded --json discard w 2>/dev/null)
assert_contains "$(jq -r '.snapshot.warnings // [] | join(" ")' <<<"$out") $(jq -r '.warnings | join(" ")' <<<"$out")" "README.md is a FIFO"
restored=$(bounded restore w | tail -1)
assert_eq "$(cat "$restored/work.txt")" work
assert_eq "$(cat "$restored/README.md")" "$(git show HEAD:README.md)" "the file the FIFO replaced, as committed"
berth discard w >/dev/null
berth new w >/dev/null # the name is free at once
assert_eq "$(berth --json doctor | jq -r '.problems | length')" 0

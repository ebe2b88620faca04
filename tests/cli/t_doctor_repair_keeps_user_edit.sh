# After a kill -9 of `berth accept --strategy merge` mid-way, the user edits two of the files the
# accept was writing (one already rewritten, one not yet): `berth doctor --repair` finishes the
# accept everywhere else, leaves those two files exactly as the user made them and says so
# (exit 1); their index entries follow HEAD (a later commit cannot silently undo the change); the
# user's unrelated edits stay byte-identical.
. "$(dirname "$0")/common.sh"
make_twenty_files_repo slow
old=$(git rev-parse HEAD)
ws=$(berth new x)
rewrite_twenty "$ws"
git config filter.slow.smudge "sh -c 'sleep 0.1; cat'"
echo "user edit" >>README.md

. "$(dirname "$0")/crash_helpers.sh"
crash_accept_midway x --strategy merge
assert_eq "$(git rev-parse HEAD)" "$old" "HEAD after the crash"

# The user edits a rewritten file and one not reached yet.
done_file=$(grep -l '^new' c/*.txt | head -n1)
todo_file=$(grep -l '^old' c/*.txt | tail -n1)
echo "the user's fix" >"$done_file"
echo "the user's other fix" >"$todo_file"
sums=$(sha256sum "$done_file" "$todo_file" README.md)

out=$(not 1 berth doctor --repair)
assert_contains "$out" "finished"
assert_contains "$out" "$done_file was changed since; left as it is"
assert_contains "$out" "$todo_file was changed since; left as it is"
assert_eq "$(sha256sum "$done_file" "$todo_file" README.md)" "$sums" "the user's files"
new=$(git rev-parse HEAD)
assert_eq "$(git rev-parse HEAD^1)" "$old" "the merge landed"
assert_eq "$(git log -1 --format=%s)" "Merge berth workspace 'x'"
for i in $(seq 1 20); do
  f=c/f$i.txt
  [[ $f == "$done_file" || $f == "$todo_file" ]] && continue
  assert_eq "$(cat "$f")" "new $i" "$f"
done
# Only the user's own edits show up as changes; the intent is settled.
assert_eq "$(git diff --name-only | sort | tr '\n' ' ')" \
  "$(printf '%s\n' README.md "$done_file" "$todo_file" | sort | tr '\n' ' ')"
git diff --cached --quiet # the index follows HEAD there too: no commit would undo the change
[[ ! -e $intent ]]
berth list >/dev/null 2>"$T/err"
assert_eq "$(cat "$T/err")" "" "stderr after repair"

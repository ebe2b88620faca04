# The agent replaced a folder by a file (`rm -rf docs; echo f > docs`), or a file by a folder:
# accept lands it into a clean checkout with apply and with squash (the folder the change deletes
# is no obstacle to the file of the same name). A folder that also holds a file of the user's
# (untracked or ignored) is still in the way: dirty_target, nothing changed.
. "$(dirname "$0")/common.sh"
make_repo app
mkdir -p docs/deep && echo deep >docs/deep/more.md
git add -A && git commit -q -m "deeper docs"

for s in apply squash; do
  ws=$(berth new "d$s")
  rm -rf "$ws/docs" && echo "docs are a file now" >"$ws/docs"
  berth accept "d$s" --strategy "$s" >/dev/null
  [[ -f docs ]]
  assert_eq "$(cat docs)" "docs are a file now"
  if [[ $s == apply ]]; then
    assert_eq "$(git diff --cached --name-status | tr '\t\n' ' |')" "A docs|D docs/deep/more.md|D docs/guide.md|"
    git commit -q -m "apply"
  fi
  assert_eq "$(git show HEAD:docs)" "docs are a file now"
  assert_eq "$(git status --porcelain --untracked-files=all)" ""

  # And back: the file becomes a folder again.
  ws=$(berth new "f$s")
  rm "$ws/docs" && mkdir -p "$ws/docs/deep" && echo guide >"$ws/docs/guide.md"
  echo deep >"$ws/docs/deep/more.md"
  berth accept "f$s" --strategy "$s" >/dev/null
  [[ -d docs ]]
  assert_eq "$(cat docs/guide.md docs/deep/more.md)" "$(printf 'guide\ndeep')"
  [[ $s == squash ]] || git commit -q -m "apply back"
  assert_eq "$(git show HEAD:docs/guide.md)" guide
  assert_eq "$(git status --porcelain --untracked-files=all)" ""
done

# A file of the user's in the folder: in the way.
ws=$(berth new mine)
rm -rf "$ws/docs" && echo "file" >"$ws/docs"
echo "the user's notes" >docs/notes.md
before=$(fingerprint)
ws_before=$(fingerprint "$ws")
out=$(expect_error dirty_target 5 berth --json accept mine --strategy squash)
assert_contains "$(jq -r '.error.paths | join(" ")' <<<"$out")" docs
assert_unchanged "$before"
assert_unchanged "$ws_before" "$ws"
echo "docs/notes.md" >>.git/info/exclude # ignored: still the user's
expect_error dirty_target 5 berth --json accept mine --strategy squash >/dev/null
assert_eq "$(cat docs/notes.md)" "the user's notes"

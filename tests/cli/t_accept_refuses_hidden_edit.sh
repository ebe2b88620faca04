# An edit of the user's that `git status` does not show, because the path is flagged
# --assume-unchanged or --skip-worktree, is still the user's uncommitted work: accept (and its
# --dry-run) refuses with dirty_target (exit 5) naming the path, and nothing changes. A flagged
# path holding exactly its committed content is no obstacle.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new x)
echo "agent readme" >"$ws/README.md"
echo "agent guide" >"$ws/docs/guide.md"

for flag in --assume-unchanged --skip-worktree; do
  echo "the user's hidden edit" >README.md
  git update-index "$flag" README.md
  assert_eq "$(git status --porcelain --untracked-files=all)" "" "git status with $flag"
  before=$(fingerprint)
  ws_before=$(fingerprint "$ws")
  for s in apply squash; do
    out=$(expect_error dirty_target 5 berth --json accept x --strategy "$s" --dry-run)
    assert_eq "$(jq -r '.error.paths | join(" ")' <<<"$out")" README.md
    out=$(expect_error dirty_target 5 berth --json accept x --strategy "$s")
    assert_eq "$(jq -r '.error.paths | join(" ")' <<<"$out")" README.md
  done
  assert_unchanged "$before"
  assert_unchanged "$ws_before" "$ws"
  assert_eq "$(cat README.md)" "the user's hidden edit"
  git update-index "${flag/--/--no-}" README.md
  git checkout -q -- README.md
done

# Flagged but unedited: it lands.
git update-index --assume-unchanged README.md
berth accept x --strategy squash >/dev/null
assert_eq "$(git show HEAD:README.md)" "agent readme"
assert_eq "$(cat README.md docs/guide.md)" "$(printf 'agent readme\nagent guide')"

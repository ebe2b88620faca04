# Accept never changes the workspace: not its branch, not its index, not its files. Its
# uncommitted work lands (as objects) without being committed there: on success with --keep
# (squash, merge, rebase), on a rebase that conflicts, and when the landing itself fails (the
# user's index is locked by another git command).
. "$(dirname "$0")/common.sh"
make_repo app

ws_state() {
  git -C "$1" rev-parse HEAD
  git -C "$1" for-each-ref --format='%(refname) %(objectname)' refs/heads/berth/
  git -C "$1" ls-files -s --debug | sha256sum
  git -C "$1" status --porcelain=v2 --untracked-files=all
  tree_digest "$1"
}

# A workspace with two commits (one authored by someone else) and uncommitted work, staged and not.
make_ws() {
  local ws
  ws=$(berth new "$1")
  (
    cd "$ws"
    commit_file "$1/a.txt" a "add a"
    echo b >"$1/b.txt" && git add "$1/b.txt"
    GIT_AUTHOR_NAME="Agent Smith" GIT_AUTHOR_EMAIL=agent@example.com \
      GIT_AUTHOR_DATE="1600000000 +0200" git commit -q -m "add b"
    echo staged >"$1/staged.txt" && git add "$1/staged.txt"
    echo untracked >"$1/untracked.txt"
    echo edited >>"$1/a.txt"
  )
  echo "$ws"
}
commit_file user.txt "user work" "user's own commit"

for s in squash merge rebase; do
  ws=$(make_ws "k$s")
  before=$(ws_state "$ws")
  berth accept "k$s" --strategy "$s" --keep >/dev/null
  assert_eq "$(ws_state "$ws")" "$before" "workspace after accept --strategy $s --keep"
  assert_eq "$(git show "HEAD:k$s/untracked.txt")" untracked
  assert_eq "$(git show "HEAD:k$s/a.txt")" "$(printf 'a\nedited')"
  assert_eq "$(git status --porcelain --untracked-files=all)" ""
done
# rebase replayed the commits, authors and dates kept, the uncommitted work as a last commit.
assert_eq "$(git log --format='%s|%an|%ad' --date=raw -3 | tr '\n' '#')" \
  "berth: uncommitted work of krebase|Test User|$(git log -1 --format=%ad --date=raw)#add b|Agent Smith|1600000000 +0200#add a|Test User|$(git log -1 --skip=2 --format=%ad --date=raw)#"
assert_eq "$(git rev-list --merges --count HEAD~3..HEAD)" 0

# A rebase that conflicts changes nothing anywhere.
ws=$(make_ws conflicting)
commit_file conflicting/a.txt "the user's a"
before=$(fingerprint)
ws_before=$(ws_state "$ws")
out=$(expect_conflict berth --json accept conflicting --strategy rebase)
assert_contains "$(jq -r '.conflicts | join(" ")' <<<"$out")" conflicting/a.txt
assert_unchanged "$before"
assert_eq "$(ws_state "$ws")" "$ws_before" "workspace after a conflicting rebase"

# The landing fails (another git command holds the user's index): nothing changes, anywhere.
ws=$(make_ws locked)
before=$(fingerprint)
ws_before=$(ws_state "$ws")
touch .git/index.lock
for s in squash rebase; do
  expect_error conflict 3 berth --json accept locked --strategy "$s" >/dev/null
done
rm .git/index.lock
assert_unchanged "$before"
assert_eq "$(ws_state "$ws")" "$ws_before" "workspace after a failed landing"
berth accept locked --strategy squash >/dev/null
assert_eq "$(git show HEAD:locked/staged.txt)" staged

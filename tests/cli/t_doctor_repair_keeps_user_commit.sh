# After a kill -9 of `berth accept` mid-way, the user sweeps the half-written files into a commit
# of their own (`git add -A; git commit`). `berth doctor --repair` then rolls back only what HEAD
# does not contain: it never stages a deletion or a revert of a file the user committed, and the
# files they committed stay as they are.
. "$(dirname "$0")/common.sh"
make_twenty_files_repo slow
ws=$(berth new x)
rewrite_twenty "$ws"
for i in $(seq 1 5); do echo "added $i" >"$ws/c/add$i.txt"; done
git -C "$ws" add -A && git -C "$ws" commit -qm "rewrite and add"
git config filter.slow.smudge "sh -c 'sleep 0.1; cat'"

. "$(dirname "$0")/crash_helpers.sh"
crash_accept_midway x --strategy squash
# The user takes whatever is on disk into their own commit.
rm -f .git/index.lock
git add -A
git commit -q -m "user sweeps"
user_tip=$(git rev-parse HEAD)
swept=$(git diff-tree --no-commit-id --name-only -r HEAD | LC_ALL=C sort)
[[ -n $swept ]]

out=$(berth doctor --repair 2>/dev/null) || true
assert_contains "$out" "rolled back"
assert_eq "$(git rev-parse HEAD)" "$user_tip" "the user's commit"
# Nothing staged against the user's commit, no file of it changed on disk.
assert_eq "$(git diff --cached --name-only)" "" "staged after the repair"
assert_eq "$(git status --porcelain --untracked-files=all)" "" "status after the repair"
for f in $swept; do
  if git cat-file -e "HEAD:$f" 2>/dev/null; then
    assert_eq "$(git hash-object "$f")" "$(git rev-parse "HEAD:$f")" "$f"
  else
    [[ ! -e $f ]] # the user's commit deleted it (a file caught between git's unlink and write)
  fi
done
[[ ! -e $intent ]]

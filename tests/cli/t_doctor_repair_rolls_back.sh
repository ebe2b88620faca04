# After a kill -9 of `berth accept --strategy ff` mid-way, the user moves their branch on (clears
# git's stale lock, commits something else): `berth doctor --repair` then rolls the half-written
# files back to the old state instead of finishing, keeps the user's commit, and touches nothing
# else.
. "$(dirname "$0")/common.sh"
make_twenty_files_repo slow
ws=$(berth new x)
rewrite_twenty "$ws"
git -C "$ws" commit -qam "rewrite"
git config filter.slow.smudge "sh -c 'sleep 0.1; cat'"
echo scratch >scratch.md

. "$(dirname "$0")/crash_helpers.sh"
crash_accept_midway x --strategy ff

rm -f .git/index.lock
echo "user's line" >>README.md
git add README.md
git commit -q -m "user moves on"
user_tip=$(git rev-parse HEAD)

out=$(berth doctor --repair 2>/dev/null)
assert_contains "$out" "rolled back"
assert_eq "$(git rev-parse HEAD)" "$user_tip" "the user's commit"
for i in $(seq 1 20); do assert_eq "$(cat "c/f$i.txt")" "old $i" "c/f$i.txt"; done
assert_eq "$(git status --porcelain --untracked-files=all)" "?? scratch.md"
[[ ! -e $intent ]]
# The workspace was not landed: it is still there to accept again.
assert_eq "$(berth --json list | jq -r '.[0].state')" ready

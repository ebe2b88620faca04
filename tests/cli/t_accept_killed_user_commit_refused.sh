# kill -9 of `berth accept` alone while it writes into the user's checkout, then the user's own
# `git commit -a` (and `git add`): git itself refuses ("index.lock: File exists"), so the
# half-written change is never swept into the user's commit. (The ref locks accept held died with
# it, and git committed the half-landed files.) The lock names `berth doctor --repair`, doctor
# reports the interrupted accept, --repair finishes it and removes the lock; then the user's
# commit works and holds exactly their own edit on top of the accepted change.
. "$(dirname "$0")/common.sh"
make_twenty_files_repo slow
old=$(git rev-parse HEAD)
ws=$(berth new x)
rewrite_twenty "$ws"
git -C "$ws" commit -qam "rewrite twenty files"
git config filter.slow.smudge "sh -c 'sleep 0.1; cat'"
echo "user edit" >>README.md

. "$(dirname "$0")/crash_helpers.sh"
CRASH_KILL=alone crash_accept_midway x --strategy squash
assert_eq "$(git rev-parse HEAD)" "$old" "HEAD after the kill"

# The user's git refuses to take the half-written checkout.
not 128 git commit -qam "user's commit" >/dev/null
assert_contains "$(last_stderr)" "index.lock': File exists"
not 128 git add -A >/dev/null
assert_eq "$(git rev-parse HEAD)" "$old" "HEAD after the refused commit"
assert_eq "$(git diff --cached --name-only)" "" "nothing staged by the refused commands"
assert_contains "$(cat .git/index.lock)" "berth doctor --repair"

out=$(not 1 berth --json doctor)
assert_eq "$(jq -r '.problems[0].message' <<<"$out")" "interrupted accept of 'x' into main (20 file(s))"
assert_contains "$(jq -r '.problems[0].repair' <<<"$out")" "removes $T/app/.git/index.lock"
berth doctor --repair >"$T/repair.out" 2>/dev/null
assert_contains "$(cat "$T/repair.out")" "finished"
[[ ! -e .git/index.lock && ! -e $intent ]]
[[ -z $(find .git -maxdepth 1 -name 'index.berth*') ]]
new=$(git rev-parse HEAD)
assert_eq "$(git rev-parse HEAD^)" "$old" "the squash landed"
for i in $(seq 1 20); do assert_eq "$(cat "c/f$i.txt")" "new $i" "c/f$i.txt"; done
assert_eq "$(git status --porcelain --untracked-files=all)" " M README.md"

# Now the user's commit goes through, with their edit only.
git commit -qam "user's commit"
assert_eq "$(git rev-parse HEAD^)" "$new"
assert_eq "$(git diff-tree --no-commit-id --name-only -r HEAD)" README.md
berth doctor >/dev/null

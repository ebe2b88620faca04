# `berth sync` killed with its whole process group while git's merge writes files (held in a
# smudge filter): git leaves worktrees/x/index.lock and a half-merged tree. doctor tells (it used
# to say "all good" while every commit and sync failed with "remove the file manually", naming no
# file); the next command puts the workspace back exactly as it was before the sync, and sync
# then works.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/git_fault_helpers.sh" # user_checkout
make_repo app 5
hold_checkouts 'held*.txt'
git add .gitattributes && git commit -q -m "held files"
ws=$(berth new x)
echo edit >>"$ws/README.md"
echo new >"$ws/untracked.txt"
start=$(git -C "$ws" rev-parse HEAD)
digest=$(tree_digest "$ws")
index=$(git -C "$ws" ls-files -s | sha256sum)
commit_file held1.txt one
commit_file held2.txt two
user=$(user_checkout)

setsid "$BERTH_BIN" sync x >/dev/null 2>&1 &
pid=$!
wait_for_file "$T/checkout-started"
kill -9 -- -"$pid"
wait "$pid" 2>/dev/null || true
admin=$(git -C "$ws" rev-parse --absolute-git-dir)
[[ -e $admin/index.lock ]] || { echo "the kill left no index.lock: not mid-merge" >&2; false; }
sleep 1.1 # doctor leaves a lock younger than a second alone (a git may be renaming it)
out=$(not 1 berth --json doctor)
assert_contains "$(jq -r '[.problems[] | select(.name == "x") | .code] | join(" ")' <<<"$out")" interrupted_sync
assert_contains "$(jq -r '[.problems[] | select(.name == "x") | .code] | join(" ")' <<<"$out")" stale_lock

berth list >/dev/null # the next command settles it
[[ ! -e $admin/index.lock ]]
assert_eq "$(git -C "$ws" rev-parse HEAD)" "$start"
assert_eq "$(git -C "$ws" ls-files -s | sha256sum)" "$index"
assert_eq "$(tree_digest "$ws")" "$digest"
assert_eq "$(git -C "$ws" rev-parse -q --verify MERGE_HEAD || true)" ""
berth doctor >/dev/null
assert_eq "$(user_checkout)" "$user"
touch "$T/release"
berth sync x >/dev/null
assert_eq "$(cat "$ws/held2.txt")" two

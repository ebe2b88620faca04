# Two accepts into the same branch at once (two agents finishing together): the second waits for
# the first to land, then lands on top of it; neither is refused, both changes are on the branch,
# one commit each, and the user's checkout is clean.
. "$(dirname "$0")/common.sh"
make_repo app
hold_checkouts '*.held'
git add .gitattributes && git commit -q -m "held files"
a=$(berth new a)
echo from-a >"$a/a.held"
b=$(berth new b)
echo from-b >"$b/b.txt"
start=$(git rev-parse HEAD)

berth accept a --strategy squash >"$T/a.out" 2>&1 &
first=$!
wait_for_file "$T/checkout-started" # a is half-way through writing into the checkout
berth --json accept b --strategy squash >"$T/b.out" 2>"$T/b.err" &
second=$!
sleep 1
# b is waiting for a, not refused and not landed.
kill -0 "$second"
assert_eq "$(git rev-parse HEAD)" "$start"
touch "$T/release"
wait "$first"
wait "$second" || { cat "$T/b.out" "$T/b.err" >&2; exit 1; }

assert_eq "$(git show HEAD:b.txt)" from-b
assert_eq "$(git show HEAD~1:a.held)" from-a
assert_eq "$(git rev-parse HEAD~2)" "$start"
assert_eq "$(jq -r .old_commit "$T/b.out")" "$(git rev-parse HEAD~1)" # planned on top of a
assert_eq "$(git status --porcelain --untracked-files=all)" ""
assert_eq "$(berth --json list | jq length)" 0

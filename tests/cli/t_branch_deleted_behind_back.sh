# A workspace branch deleted behind berth's back: with HEAD still naming it
# (`git update-ref -d refs/heads/berth/a`: git then calls HEAD unborn) or after detaching
# (`git branch -D berth/b`). status, list and doctor say so (`branch_missing`), `diff` fails
# clearly instead of git's "Needed a single revision", `discard` keeps the work (HEAD's commit,
# staged and uncommitted files) and frees the name, and `doctor --repair` makes the branch again
# where HEAD is (or last was).
. "$(dirname "$0")/common.sh"
make_repo app
setup() {
  local ws
  ws=$(berth new "$1")
  (cd "$ws" && commit_file "$1.txt" "committed in $1")
  echo "staged $1" >"$ws/staged.txt"
  git -C "$ws" add staged.txt
  echo "untracked $1" >"$ws/u.txt"
  echo "$ws"
}
a=$(setup a)
a_head=$(git -C "$a" rev-parse HEAD)
b=$(setup b)
b_head=$(git -C "$b" rev-parse HEAD)
c=$(setup c)
c_head=$(git -C "$c" rev-parse HEAD)
git update-ref -d refs/heads/berth/a
git update-ref -d refs/heads/berth/c
git -C "$b" checkout -q --detach
git branch -q -D berth/b

state() { berth --json list | jq -r --arg n "$1" '.[] | select(.name == $n) | .state'; }
for n in a b c; do assert_eq "$(state $n)" branch_missing; done
assert_eq "$(berth --json status a | jq -r .state)" branch_missing
assert_eq "$(berth --json status a | jq -r .dirty)" true # its work is unknown, never "clean"
# ... and its counts too: null, not zeros a script would read as "nothing changed".
assert_eq "$(berth --json status a | jq -c .changes)" null
assert_eq "$(berth --json list | jq -c '.[] | select(.name == "a") | .changes')" null
assert_contains "$(berth status a)" "changes    unknown"
assert_eq "$(berth list | awk '$1 == "a" {print $5}')" "?"

# diff: a clear error where HEAD names the deleted branch; the detached one still works.
before=$(fingerprint)
out=$(expect_error branch_missing 1 berth --json diff a)
assert_contains "$(jq -r .error.hint <<<"$out")" "berth doctor --repair"
assert_contains "$(jq -r .error.hint <<<"$out")" "${a_head:0:12}"
for cmd in "commit a -m msg" "sync a" "accept a"; do
  # shellcheck disable=SC2086
  expect_error branch_missing 1 berth --json $cmd >/dev/null
done
assert_unchanged "$before"
assert_contains "$(berth diff --name-only b)" b.txt

report=$(not 1 berth --json doctor)
for n in a b c; do
  assert_eq "$(jq -r --arg n $n '.problems[] | select(.name == $n) | .code' <<<"$report")" \
    branch_missing
done

# discard a: its commit, staged and untracked files go to the trash; the name is free again.
berth discard a >/dev/null
assert_eq "$(git branch --list 'berth/a')" ""
snap=$(git for-each-ref --format='%(refname)' refs/berth/trash/a/)
assert_eq "$(git show "$snap:a.txt")" "committed in a"
assert_eq "$(git show "$snap:u.txt")" "untracked a"
assert_eq "$(git show "$snap^2:staged.txt")" "staged a" # the staged state
berth new a >/dev/null
berth discard a >/dev/null
ws=$(berth restore a) # the newest snapshot is the empty one: the one before holds the work
git -C "$ws" cat-file -e "$a_head" # reachable still
berth discard a >/dev/null

# doctor --repair makes b and c again: at b's HEAD (left detached) and at c's last commit.
berth doctor --repair >"$T/repair.out"
assert_contains "$(cat "$T/repair.out")" "branch berth/c made again"
assert_eq "$(git rev-parse berth/b)" "$b_head"
assert_eq "$(git rev-parse berth/c)" "$c_head"
assert_eq "$(git -C "$c" rev-parse HEAD)" "$c_head"
assert_eq "$(git -C "$c" show :staged.txt)" "staged c" # its index is as it was
assert_eq "$(cat "$c/u.txt")" "untracked c"
assert_eq "$(berth doctor)" "all good"
assert_eq "$(state c)" ready
assert_contains "$(berth diff --name-only c)" staged.txt

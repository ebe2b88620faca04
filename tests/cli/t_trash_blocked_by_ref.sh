# A ref refs/berth/trash/x (a file ref where x's trash needs a folder of refs) makes every snapshot
# of x impossible to write: `discard x` fails with trash_blocked naming the ref and the repair
# (not git's raw text), changing nothing; doctor reports it (trash_blocked) and --repair moves it
# to refs/berth/invalid/blocking/trash.x-<time> (nothing lost); the discard then works. The same for a ref
# refs/berth/trash, which blocks every name.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new x)
echo work >"$ws/w.txt"
git update-ref refs/berth/trash/x HEAD
held=$(git rev-parse HEAD)

before=$(fingerprint)
out=$(expect_error trash_blocked 1 berth --json discard x)
assert_contains "$(jq -r .error.message <<<"$out")" "refs/berth/trash/x"
assert_contains "$(jq -r .error.hint <<<"$out")" "berth doctor --repair"
assert_contains "$(jq -r '.error.git.argv | join(" ")' <<<"$out")" "update-ref" # git's answer kept
assert_unchanged "$before"
assert_eq "$(cat "$ws/w.txt")" work

report=$(not 1 berth --json doctor)
problem=$(jq -c '[.problems[] | select(.code == "trash_blocked")][0]' <<<"$report")
assert_eq "$(jq -r .path <<<"$problem")" refs/berth/trash/x
assert_contains "$(jq -r .repair <<<"$problem")" "berth doctor --repair"
berth doctor --repair >/dev/null
assert_eq "$(git for-each-ref --format="%(objectname)" "refs/berth/invalid/blocking/trash.x-*")" "$held"
not 1 git rev-parse --verify -q refs/berth/trash/x >/dev/null
berth doctor >/dev/null

berth discard x >/dev/null 2>&1
assert_eq "$(berth --json restore --list x | jq -r '.[0].state')" ok
restored=$(berth restore x)
assert_eq "$(cat "$restored/w.txt")" work

# refs/berth/trash itself a ref: every discard is refused the same way, doctor names it.
berth new y >/dev/null
git for-each-ref --format='delete %(refname)' refs/berth/trash/ | git update-ref --stdin
git update-ref refs/berth/trash HEAD
before=$(fingerprint)
expect_error trash_blocked 1 berth --json discard y >/dev/null
assert_unchanged "$before"
report=$(not 1 berth --json doctor)
assert_eq "$(jq -r '[.problems[] | select(.code == "trash_blocked")][0].path' <<<"$report")" refs/berth/trash
berth doctor --repair >/dev/null
assert_eq "$(git for-each-ref --format="%(objectname)" "refs/berth/invalid/blocking/trash-*")" "$held"
berth discard y >/dev/null 2>&1
berth doctor >/dev/null

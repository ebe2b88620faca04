# A workspace whose worktree was removed behind berth's back: `git worktree remove -ff` (directory
# and git's admin dir gone), `rm -rf` + `git worktree prune` (berth's lock keeps git's admin dir),
# the same after `git worktree unlock`, or only `rm -rf`. Each is shown for what it is (`removed`:
# git has no worktree any more; `missing`: git still has one), `berth discard` cleans each up
# keeping the branch's commits in the trash, and the name is free again at once.
. "$(dirname "$0")/common.sh"
make_repo app
for how in ff prune unlocked rm; do
  ws=$(berth new "x-$how")
  (cd "$ws" && commit_file "$how.txt" "committed by $how")
  case $how in
  ff) git worktree remove -ff "$ws" ;;
  prune) rm -rf "$ws" && git worktree prune ;;
  unlocked) git worktree unlock "$ws" && rm -rf "$ws" && git worktree prune ;;
  rm) rm -rf "$ws" ;;
  esac
done
state() { berth --json list | jq -r --arg n "$1" '.[] | select(.name == $n) | .state'; }
assert_eq "$(state x-ff)" removed
assert_eq "$(state x-unlocked)" removed
assert_eq "$(state x-prune)" missing
assert_eq "$(state x-rm)" missing
assert_eq "$(berth --json status x-ff | jq -r .state)" removed
assert_eq "$(berth --json status x-ff | jq -r .ahead)" 1 # its commit, kept by discard
assert_contains "$(berth list | grep '^x-ff ')" removed

# doctor names each for what it is, and its fix is one that works.
report=$(not 1 berth --json doctor)
code() { jq -r --arg n "$1" '.problems[] | select(.name == $n) | .code' <<<"$report"; }
assert_eq "$(code x-ff)" worktree_missing
assert_eq "$(code x-unlocked)" worktree_missing
assert_eq "$(code x-prune)" directory_missing
assert_eq "$(code x-rm)" directory_missing
assert_contains "$(jq -r '.problems[] | select(.name == "x-ff") | .repair' <<<"$report")" \
  "berth discard x-ff"

# `berth discard` cleans one up; `doctor --repair` the others.
berth discard x-ff >/dev/null 2>&1
ws=$(berth new x-ff) # the name is free again at once
berth discard x-ff >/dev/null
berth doctor --repair >"$T/repair.out"
for how in prune unlocked rm; do assert_contains "$(cat "$T/repair.out")" "x-$how"; done
assert_eq "$(berth doctor)" "all good"
assert_eq "$(berth --json list | jq length)" 0
git worktree list --porcelain | { ! grep -q 'x-'; }
for how in ff prune unlocked rm; do
  assert_eq "$(git branch --list "berth/x-$how")" ""
  # The committed work comes back from the trash (the newest snapshot of x-ff is the empty
  # one made above: the one before it holds the commit).
  snap=$(git for-each-ref --sort=-refname --format='%(objectname)' "refs/berth/trash/x-$how/" |
    while read -r c; do git cat-file -e "$c:$how.txt" 2>/dev/null && echo "$c" && break; done)
  assert_eq "$(git show "$snap:$how.txt")" "committed by $how"
done
ws=$(berth restore x-prune)
assert_eq "$(cat "$ws/prune.txt")" "committed by prune"

# Worktree removed and its branch deleted too: nothing of it is left to keep, and neither doctor
# nor discard claims otherwise.
ws=$(berth new both)
(cd "$ws" && commit_file both.txt "committed")
git worktree remove -ff "$ws"
git branch -D berth/both >/dev/null
report=$(not 1 berth --json doctor)
assert_contains "$(jq -r '.problems[] | select(.name == "both") | .repair' <<<"$report")" \
  "its branch is gone too"
json=$(berth --json discard both 2>/dev/null)
assert_contains "$(jq -r '.warnings | join(" ")' <<<"$json")" "nothing was saved"
berth new both >/dev/null

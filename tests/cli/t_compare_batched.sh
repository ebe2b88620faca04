# compare reads every attempt's files and patch in a few git calls for all of them (one
# `diff-tree --stdin` pass), not three per attempt, and none for a diff kept from the last
# compare; an attempt nobody touched since the last look is captured without git (its trees are
# kept with the watcher's verdict). Same figures as `berth diff` shows for each attempt: renames,
# binary files, mode changes, committed and uncommitted work, an attempt with no change, two
# attempts with the same tree; and a change made after one compare is seen by the next (the kept
# trees are not reused once anything moved).
. "$(dirname "$0")/common.sh"
make_repo app 20
printf '\x00\x01bin' >blob.bin && git add blob.bin && git commit -qm binary
for i in 1 2 3 4 5; do berth new "try-$i" >/dev/null; done
edit() { # attempt: rename, binary, mode change, a line added (all uncommitted)
  local ws
  ws=$(berth path "$1")
  git -C "$ws" mv -k files/1/f1.txt files/1/renamed.txt
  printf '\x00\x02bin' >"$ws/blob.bin"
  chmod -x "$ws/bin/run.sh"
  echo "$2" >>"$ws/README.md"
}
edit try-1 same
edit try-4 same # the same tree as try-1: the same diff-tree header twice in one batch
ws2=$(berth path try-2)
echo committed >>"$ws2/src/main.c" && git -C "$ws2" commit -qam "one commit"
echo uncommitted >"$ws2/new.txt"
echo other >>"$(berth path try-5)/docs/guide.md"
# try-3: no change at all.

same_as_diff() { # each attempt's files and counts in compare are `berth diff`'s
  local doc=$1 name
  for name in try-1 try-2 try-3 try-4 try-5; do
    assert_eq "$(jq -c --arg n "$name" '.attempts[] | select(.name == $n) | .files' <<<"$doc")" \
      "$(berth --json diff "$name" --stat | jq -c '.files')"
  done
}
# (Counted at the third: the second may still look afresh at an attempt or two — the pool's
# background filler may still be taking its first look at the newest workspaces meanwhile.)
berth --json compare try >/dev/null
GIT_TRACE=$T/second.trace berth --json compare try >/dev/null
doc=$(GIT_TRACE=$T/warm.trace berth --json compare try)
same_as_diff "$doc"
a() { jq -r --arg n "$1" ".attempts[] | select(.name == \$n) | $2" <<<"$doc"; }
assert_eq "$(a try-1 '[.files_changed, .commits, .uncommitted, .merges_cleanly] | join(" ")')" \
  "4 0 true true"
assert_eq "$(a try-2 '[.files_changed, .additions, .commits, .uncommitted] | join(" ")')" \
  "2 2 1 true"
assert_eq "$(a try-3 '[.files_changed, .commits, .uncommitted] | join(" ")')" "0 0 false"
assert_eq "$(a try-1 '[.files[] | select(.old_path != null) | .old_path] | join(" ")')" \
  files/1/f1.txt
assert_eq "$(a try-1 '[.files[] | select(.binary) | .path] | join(" ")')" blob.bin
p() { jq -r --arg a "$1" --arg b "$2" ".pairs[] | select(.a == \$a and .b == \$b) | $3" <<<"$doc"; }
assert_eq "$(p try-1 try-4 '[.relation, .files_jaccard, .lines_jaccard] | join(" ")')" "identical 1 1"
assert_eq "$(p try-1 try-5 '.relation')" disjoint

# The git processes of a compare of 5 attempts nobody changed since the last: where the project
# is, the target and git's excludes file (3), and per attempt only what its state needs: try-2's commits (a rev-list,
# which also says the target is its ancestor: a clean merge). Their diffs are kept from the last
# compare (t_compare_cache). Session 8: 19 per attempt; session 9: 16 in all.
count=$(grep -c 'trace: built-in: git' "$T/warm.trace")
if ((count > 4)); then
  echo "compare of 5 idle attempts ran $count git processes (want ≤ 4):" >&2
  grep 'trace: built-in: git' "$T/warm.trace" >&2
  grep "trace: built-in: git" "$T/second.trace" >&2
  exit 1
fi
assert_not_contains "$(cat "$T/warm.trace")" "diff-tree"
assert_not_contains "$(cat "$T/warm.trace")" "git status"
assert_not_contains "$(cat "$T/warm.trace")" "git var"

# A change after that compare is seen (same size: only the watcher can tell), and a commit too.
printf 'X' | dd of="$(berth path try-3)/src/main.c" bs=1 seek=0 conv=notrunc status=none
git -C "$(berth path try-1)" commit -qam "try-1 commits"
# The target moves: the merges are previewed by merge-tree again (try-5 conflicts).
echo "user's guide" >docs/guide.md && git commit -qam "user edits the guide"
doc=$(berth --json compare try)
same_as_diff "$doc"
assert_eq "$(a try-3 '[.files_changed, .uncommitted] | join(" ")')" "1 true"
assert_eq "$(a try-1 '[.commits, .uncommitted] | join(" ")')" "1 false"
assert_eq "$(jq -r '[.attempts[].merges_cleanly] | join(" ")' <<<"$doc")" "true true true true false"
assert_eq "$(a try-5 '.conflicts | join(" ")')" docs/guide.md

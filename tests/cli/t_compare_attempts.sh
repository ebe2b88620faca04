# `berth compare TASK` puts the attempts TASK-1..N side by side: each one's files, lines, commits,
# uncommitted work and whether it merges into the target now; across them, which pairs are
# identical, overlapping or disjoint (with Jaccard indexes) and the files they all changed alike.
# Comparing changes nothing.
. "$(dirname "$0")/common.sh"
make_repo app
for i in 1 2 3 4; do berth new "fix-$i" >/dev/null; done
# 1 and 2 make the same change (2 commits it, 1 leaves it uncommitted): identical.
for i in 1 2; do
  ws=$(berth path "fix-$i")
  echo fixed >>"$ws/README.md"
  echo hello >"$ws/new.txt"
done
git -C "$(berth path fix-2)" add -A
git -C "$(berth path fix-2)" commit -qm "fix it"
# 3 changes README.md otherwise and src/main.c: it overlaps 1 and 2 (README.md).
ws3=$(berth path fix-3)
echo other >>"$ws3/README.md"
printf 'int main(void) { return 1; }\n' >"$ws3/src/main.c"
# 4 changes docs/guide.md only (disjoint), which the user changes too on main: it conflicts.
echo "attempt four" >"$(berth path fix-4)/docs/guide.md"
echo "user's guide" >docs/guide.md
git commit -qam "user edits the guide"
before=$(fingerprint)

doc=$(berth --json compare fix)
assert_eq "$(jq -r '.task' <<<"$doc")" fix
assert_eq "$(jq -r '[.attempts[].name] | join(" ")' <<<"$doc")" "fix-1 fix-2 fix-3 fix-4"
assert_eq "$(jq -r '[.attempts[].attempt] | join(" ")' <<<"$doc")" "1 2 3 4"
a() { jq -r --arg n "$1" ".attempts[] | select(.name == \$n) | $2" <<<"$doc"; }
assert_eq "$(a fix-1 '[.files_changed, .additions, .deletions, .commits, .uncommitted] | join(" ")')" "2 2 0 0 true"
assert_eq "$(a fix-2 '[.files_changed, .additions, .deletions, .commits, .uncommitted] | join(" ")')" "2 2 0 1 false"
assert_eq "$(a fix-3 '[.files_changed, .additions, .deletions] | join(" ")')" "2 2 1"
assert_eq "$(a fix-1 '.run')" null
assert_eq "$(jq -r '[.attempts[].merges_cleanly] | join(" ")' <<<"$doc")" "true true true false"
assert_eq "$(a fix-4 '.conflicts | join(" ")')" docs/guide.md
assert_eq "$(jq -r '.target' <<<"$doc")" "$(git branch --show-current)"
p() { jq -r --arg a "$1" --arg b "$2" ".pairs[] | select(.a == \$a and .b == \$b) | $3" <<<"$doc"; }
assert_eq "$(jq '.pairs | length' <<<"$doc")" 6
assert_eq "$(p fix-1 fix-2 '[.relation, .files_jaccard, .lines_jaccard] | join(" ")')" "identical 1 1"
# 1 and 3: files {README.md, new.txt} and {README.md, src/main.c}: 1 of 3; no line in common.
assert_eq "$(p fix-1 fix-3 '.relation')" overlapping
assert_eq "$(p fix-1 fix-3 '.files_jaccard * 3 | round')" 1
assert_eq "$(p fix-1 fix-3 '.lines_jaccard')" 0
assert_eq "$(p fix-1 fix-3 '.shared_files | join(" ")')" README.md
assert_eq "$(p fix-3 fix-4 '[.relation, .files_jaccard] | join(" ")')" "disjoint 0"
assert_eq "$(jq -r '.files[] | select(.path == "README.md") | .attempts | join(" ")' <<<"$doc")" \
  "fix-1 fix-2 fix-3"
assert_eq "$(jq -r '.agree | length' <<<"$doc")" 0
assert_unchanged "$before"

# Two named workspaces: the files both changed alike are where they agree.
doc=$(berth --json compare fix-1 fix-2)
assert_eq "$(jq -r '.task' <<<"$doc")" null
assert_eq "$(jq -r '.agree | join(" ")' <<<"$doc")" "README.md new.txt"

# The text: one row per attempt, the pairs, the conflict named.
out=$(berth compare fix)
assert_eq "$(sed '/^$/q' <<<"$out" | grep -c '^fix-[1-4] ')" 4
assert_contains "$out" "fix-1 ~ fix-2: identical"
assert_contains "$out" "fix-3 ~ fix-4: disjoint"
grep -Eq '^fix-4 .*conflicts \(1\)' <<<"$out"
assert_contains "$out" "fix-4 conflicts with"
assert_unchanged "$before"

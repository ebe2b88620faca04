# Right after discards with a pool, the discarded trees only wait for the background deleter:
# `doctor` lists them as pending, not as problems (exit 0). `doctor --repair` leaves them to a
# deleter that is at work; with none running it deletes a tree only once its own full look has
# verified the tree's snapshot (completing it with what the snapshot missed), and keeps a tree
# whose snapshot it cannot verify (here: the snapshot ref was dropped), as a problem. Also for a
# workspace made under another root (`-c workspace_root=DIR`), without the flag.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app 20
export BERTH_POOL_SIZE=1
berth pool fill >/dev/null
a=$(berth -c workspace_root="$T/elsewhere" new a)
b=$(berth new b)
wait_for_fillers
echo "work of a" >"$a/a.txt"
echo "work of b" >"$b/b.txt"

# The deleter is kept waiting (it takes this lock before it looks at a tree); the holder stops
# by itself if the test is gone.
pool_dir=$(git rev-parse --git-common-dir)/berth/pool
flock "$pool_dir/reap.lock" -c "touch $T/held; i=0; while [ ! -e $T/let-go ] && [ -d $T ] &&
  [ \$i -lt 1200 ]; do sleep 0.05; i=\$((i + 1)); done" &
holder=$!
wait_for_file "$T/held"
berth discard a >/dev/null 2>&1
berth discard b >/dev/null 2>&1
trash=$(dirname "$b")/.trash other=$T/elsewhere/.trash
assert_eq "$(find "$trash" "$other" -mindepth 1 -maxdepth 1 | wc -l)" 2 "trees waiting"

out=$(berth --json doctor)
assert_eq "$(jq -c .problems <<<"$out")" "[]"
assert_eq "$(jq '.pending | length' <<<"$out")" 2 "pending trees"
assert_eq "$(berth --json doctor --repair | jq -c '[.problems, .repaired, (.pending | length)]')" \
  '[[],[],2]'
assert_eq "$(find "$trash" "$other" -mindepth 1 -maxdepth 1 | wc -l)" 2 "trees left to the deleter"

# The deleter dies before its turn: the trees stay pending (the next deleter takes them).
# (One filler serves both discards, waiting for the lock held above: the second discard found it
# at work and started none, or started one that left at once. Each was started, exec'd, before
# its discard returned. Waiting for two spent the whole 10 s.)
for ((i = 0; i < 200; i++)); do (($(pool_fillers | wc -l) >= 1)) && break; sleep 0.05; done
for pid in $(pool_fillers); do kill -9 "$pid"; done
touch "$T/let-go"
wait "$holder"
wait_for_fillers
assert_eq "$(berth --json doctor | jq -c '[.problems, (.pending | length)]')" '[[],2]'

# A's tree got a file its snapshot missed; b's snapshot is gone.
echo "late" >"$(echo "$other"/a.*)/late.txt"
git update-ref -d "$(git for-each-ref --format='%(refname)' refs/berth/trash/b/)"
out=$(not 1 berth --json doctor --repair)
assert_eq "$(jq '.repaired | length' <<<"$out")" 1 "repaired"
assert_contains "$(jq -r '.repaired[0]' <<<"$out")" "$other/a."
assert_eq "$(jq '.problems | length' <<<"$out")" 1 "problems"
assert_eq "$(jq -r '.problems[0].code' <<<"$out")" "trash_unverified"
assert_contains "$(jq -r '.problems[0].path' <<<"$out")" "$trash/b."
assert_contains "$(jq -r '.problems[0].repair' <<<"$out")" "git worktree remove --force --force $trash/b."
[[ ! -e $(echo "$other"/a.*) ]]
[[ -e $(echo "$trash"/b.*)/b.txt ]]
snap=$(git for-each-ref --format='%(refname)' refs/berth/trash/a/)
assert_eq "$(git show "$snap:late.txt") $(git show "$snap:a.txt")" "late work of a"

# What to do with the kept tree is the user's call; then doctor is content.
git worktree remove --force --force "$(echo "$trash"/b.*)"
assert_eq "$(berth doctor)" "all good"
pool_quiesce

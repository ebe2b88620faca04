# A damaged trash: a snapshot whose commit was pruned, one that lost a file's content, and a ref
# under refs/berth/trash/ that is not a berth snapshot. `restore --list` still lists every good
# snapshot and shows the bad ones for what they are; restoring a bad one fails with
# snapshot_damaged and changes nothing; `doctor` reports each; `doctor --repair` moves them aside
# (never deletes them outright), after which `restore` brings back the newest good snapshot.
. "$(dirname "$0")/common.sh"
make_repo app
loose() { echo ".git/objects/${1:0:2}/${1:2}"; } # objects are loose: nothing was packed
for n in good gone partial; do
  ws=$(berth new "$n")
  echo "content of $n" >"$ws/$n.txt"
  berth discard "$n" >/dev/null
done
sleep 1 # partial's second snapshot in another second (each name's refs are its own)
ws=$(berth new partial)
echo "newer partial" >"$ws/newer.txt"
berth discard partial >/dev/null # partial's newest (damaged below) has an older, good one
gone_commit=$(git rev-parse "$(git for-each-ref --format='%(refname)' refs/berth/trash/gone/)")
rm "$(loose "$gone_commit")"
newest_partial=$(git for-each-ref --sort=-refname --format='%(refname)' refs/berth/trash/partial/ |
  head -1)
blob=$(git rev-parse "$newest_partial:newer.txt")
rm "$(loose "$blob")"
git update-ref refs/berth/trash/stray/1700000000 HEAD # not a snapshot

json=$(berth --json restore --list)
state() { jq -r --arg r "$1" '.[] | select(.ref == $r) | .state' <<<"$json"; }
assert_eq "$(state "$(git for-each-ref --format='%(refname)' refs/berth/trash/good/)")" ok
assert_eq "$(state "$(git for-each-ref --format='%(refname)' refs/berth/trash/gone/)")" damaged
assert_eq "$(state refs/berth/trash/stray/1700000000)" invalid
assert_eq "$(jq '[.[] | select(.name == "partial")] | length' <<<"$json")" 2
berth restore --list >"$T/list.txt" 2>"$T/list.err"
assert_contains "$(grep '^gone@' "$T/list.txt")" damaged
assert_contains "$(cat "$T/list.err")" "is missing"

before=$(fingerprint)
out=$(expect_error snapshot_damaged 1 berth --json restore gone)
assert_contains "$(jq -r .error.hint <<<"$out")" "berth doctor --repair"
out=$(expect_error snapshot_damaged 1 berth --json restore partial) # its objects, deeper down
assert_unchanged "$before"

report=$(not 1 berth --json doctor)
codes=$(jq -r '.problems[] | "\(.path) \(.code)"' <<<"$report" | sort)
assert_contains "$codes" "refs/berth/trash/stray/1700000000 trash_invalid"
assert_contains "$codes" "$newest_partial trash_damaged"
assert_eq "$(grep -c trash_damaged <<<"$codes")" 2

berth doctor --repair >/dev/null
assert_eq "$(berth doctor)" "all good"
assert_eq "$(git for-each-ref --format='%(objectname)' refs/berth/invalid/stray/)" \
  "$(git rev-parse HEAD)"
assert_contains "$(cat .git/berth/trash-damaged)" "$gone_commit"
git for-each-ref refs/berth/ | { ! grep -q "$newest_partial"; }
git gc -q --prune=now # the user's gc works again
assert_eq "$(berth --json restore --list | jq -r '[.[].state] | unique | join(",")')" ok,salvaged
ws=$(berth restore partial 2>"$T/restore.err") # the older, good one
assert_eq "$(cat "$ws/partial.txt")" "content of partial"
assert_contains "$(cat "$T/restore.err")" "--from refs/berth/damaged/partial/"
# What was salvaged of the newer one, asked for by its ref: without the lost file.
salvaged=$(berth --json restore --list partial | jq -r '.[] | select(.state == "salvaged") | .ref')
ws=$(berth restore partial --as partial2 --from "$salvaged" 2>/dev/null)
[[ ! -e $ws/newer.txt ]]
expect_error not_found 4 berth --json restore partial --as p3 --from refs/berth/trash/nope/1 >/dev/null
ws=$(berth restore good)
assert_eq "$(cat "$ws/good.txt")" "content of good"

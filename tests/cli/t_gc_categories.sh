# `berth gc`: each workspace category with its reason — landed (a squash merged by hand, the
# target moved on since), idle, an orphan record; a landed workspace with one uncommitted file and
# a workspace with a process inside are skipped, never removed; the dry run lists exactly what
# the real run removes; every removed workspace is in the trash; orphan shadow files and expired
# snapshots go too.
. "$(dirname "$0")/common.sh"
make_repo app

idle=$(berth new idle)
squashed=$(berth new squashed)
(cd "$squashed" && commit_file feature.txt 'the feature' && commit_file more.txt 'more of it')
# The user squash-merges it by hand (not through berth), then commits something else on top.
git merge -q --squash berth/squashed && git commit -q -m "squash of the feature"
commit_file later.txt 'after the squash'
dirty_landed=$(berth new dirty-landed)
(cd "$dirty_landed" && commit_file d.txt landed)
git cherry-pick berth/dirty-landed >/dev/null
echo "not committed" >"$dirty_landed/uncommitted.txt"
busy=$(berth new busy)
unlanded=$(berth new unlanded)
(cd "$unlanded" && commit_file u.txt 'mine only')
gone=$(berth new gone)
rm -rf "$gone"
# A process whose current directory is inside `busy`.
(cd "$busy" && exec sleep 60) &
sleeper=$!
for _ in $(seq 50); do [[ $(readlink /proc/$sleeper/cwd) == "$busy" ]] && break; sleep 0.05; done
# A shadow index of a workspace that no longer exists.
mkdir -p .git/berth/shadow && echo x >.git/berth/shadow/old-ws.key

before=$(fingerprint)
dry=$(berth --json gc --dry-run --older-than 0s)
assert_unchanged "$before"
item() { jq -r --arg n "$2" ".$1[] | select(.name == \$n) | \"\(.category) \(.reason)\"" <<<"$3"; }
assert_contains "$(item removed squashed "$dry")" "landed its whole change is one commit of"
assert_contains "$(item removed idle "$dry")" "idle no change"
assert_contains "$(item removed gone "$dry")" "orphan its directory is gone"
assert_contains "$(item skipped dirty-landed "$dry")" "uncommitted work"
assert_contains "$(item skipped busy "$dry")" "process $sleeper works inside it"
assert_eq "$(item removed unlanded "$dry")$(item skipped unlanded "$dry")" "" "unlanded work"
assert_contains "$(jq -r '.removed[] | select(.kind == "shadow") | .path' <<<"$dry")" "old-ws"
grep -q "^would remove landed   workspace squashed" <<<"$(berth gc --dry-run --older-than 0s)"

real=$(berth --json gc --older-than 0s)
strip='[.removed[] | del(.snapshot)]'
assert_eq "$(jq -c "$strip" <<<"$real")" "$(jq -c "$strip" <<<"$dry")" "dry run vs real run"
assert_eq "$(jq -c '[.skipped[] | .name]' <<<"$real")" "$(jq -c '[.skipped[] | .name]' <<<"$dry")"
names=$(berth --json list | jq -r '[.[].name] | sort | join(" ")')
assert_eq "$names" "busy dirty-landed unlanded" "what is left"
[[ -f $dirty_landed/uncommitted.txt && ! -e .git/berth/shadow/old-ws.key ]]
# Each removed workspace is in the trash: the squashed one restores with its commits.
for n in squashed idle gone; do
  assert_eq "$(jq -r --arg n $n '.removed[] | select(.name == $n) | .snapshot' <<<"$real" |
    cut -d/ -f1-4)" "refs/berth/trash/$n"
done
ws=$(berth restore squashed)
assert_eq "$(cat "$ws/feature.txt")" "the feature"
echo changed >"$ws/feature.txt" && berth discard squashed >/dev/null

# Expired trash: beyond the newest trash.keep of a name and older than trash.keep_days. Two
# snapshots of `squashed` now; with keep 1 and 0 days the older one goes, the newest stays.
# None is older than one day: with trash.keep_days = 1 nothing expires, even beyond --keep 0.
out=$(berth --json -c trash.keep_days=1 gc --keep 0 --older-than 1w)
assert_eq "$(jq '[.removed[] | select(.category == "expired")] | length' <<<"$out")" 0
old=$(git for-each-ref --sort=refname --format='%(refname)' refs/berth/trash/squashed/ | head -1)
out=$(berth --json -c trash.keep_days=0 gc --keep 1 --older-than 1w)
assert_eq "$(jq -r '.removed[] | select(.category == "expired") | .ref' <<<"$out")" "$old"
assert_eq "$(git for-each-ref refs/berth/trash/squashed/ | wc -l)" 1
kill $sleeper

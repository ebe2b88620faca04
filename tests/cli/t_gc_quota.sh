# `berth gc` with a quota (gc.max_workspaces): the oldest clean workspaces go first, each with the
# category `quota` and to the trash; a dirty one counts against the quota but is never removed,
# even when the quota cannot be met without it; the dry run lists what the real run removes. The
# same with gc.max_disk, whose measure of each tree is kept while the watcher sees no change.
. "$(dirname "$0")/common.sh"
make_repo app

dirty=$(berth new dirty)
echo "work in progress" >"$dirty/wip.txt"
for n in q1 q2 q3; do
  sleep 1 # last use a second apart: the order is the quota's
  berth new "$n" >/dev/null
done

removed() { jq -r '[.removed[] | select(.category == "quota") | .name] | sort | join(" ")' <<<"$1"; }
before=$(fingerprint)
dry=$(berth --json -c gc.max_workspaces=2 gc --dry-run)
assert_unchanged "$before"
assert_eq "$(removed "$dry")" "q1 q2" "the dry run: the two oldest clean ones"
real=$(berth --json -c gc.max_workspaces=2 gc)
assert_eq "$(removed "$real")" "$(removed "$dry")" "the real run does what the dry run said"
assert_eq "$(berth --json list | jq -r '[.[].name] | sort | join(" ")')" "dirty q3"
# In the trash, restorable.
ws=$(berth restore q1)
berth discard q1 >/dev/null

# One allowed, two left: the clean one goes; the dirty one stays though still over the quota.
real=$(berth --json -c gc.max_workspaces=1 gc)
assert_eq "$(removed "$real")" "q3"
assert_eq "$(berth --json list | jq -r '[.[].name] | join(" ")')" "dirty"
assert_eq "$(cat "$dirty/wip.txt")" "work in progress"

# gc.max_disk: the blocks the trees' files take. Just over by one clean workspace: the oldest
# clean one goes, the dirty one never. The measure is kept between runs while the watcher sees
# no change; a change (a big file written into the dirty one) is seen by the next run.
q4=$(berth new q4)
sleep 1
q5=$(berth new q5)
blocks() { find "$1" -type f -printf '%b\n' | awk '{s += $1 * 512} END {print s}'; }
total=$(($(blocks "$dirty") + $(blocks "$q4") + $(blocks "$q5")))
limit=$((total - $(blocks "$q4")))
disk_removed() { jq -r '[.removed[] | select(.category == "quota") | .name] | join(" ")' <<<"$1"; }
dry=$(berth --json -c gc.max_disk=$limit gc --dry-run)
assert_eq "$(disk_removed "$dry")" "q4" "max_disk: the oldest clean one"
assert_contains "$(jq -r '.removed[0].reason' <<<"$dry")" "over gc.max_disk"
assert_eq "$(disk_removed "$(berth --json -c gc.max_disk=$limit gc --dry-run)")" "q4" "measured again"
head -c 300000 /dev/urandom >"$dirty/big.bin"
assert_eq "$(disk_removed "$(berth --json -c gc.max_disk=$limit gc --dry-run)")" "q4 q5" \
  "a change since the last measure is seen"
real=$(berth --json -c gc.max_disk=$limit gc)
assert_eq "$(disk_removed "$real")" "q4 q5"
assert_eq "$(berth --json list | jq -r '[.[].name] | join(" ")')" "dirty"
assert_eq "$(cat "$dirty/wip.txt")" "work in progress"

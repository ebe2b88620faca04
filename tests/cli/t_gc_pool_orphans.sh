# `berth gc` collects orphan pool slots (kind `pool-slot`), each with its reason: a slot whose
# base commit is on no branch any more, a slot folder no record claims, a slot whose directory is
# gone, and a slot of another project's root whose repository no longer exists. A slot a live
# filler is making is skipped (in use), a fresh slot and a workspace stay, and another project's
# workspace is never touched. The dry run lists exactly what the real run removes.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"

# Another project, gone: its root keeps a pool slot and a workspace with work in it.
make_repo gone
gone_ws=$(BERTH_POOL_SIZE=0 berth new kept)
echo "their work" >"$gone_ws/wip.txt"
BERTH_POOL_SIZE=1 berth pool fill >/dev/null
gone_slot=$(BERTH_POOL_SIZE=1 berth --json pool status | jq -r '.slots[0].path')
wait_for_fillers
cd "$T" && rm -rf "$T/gone"
test -d "$gone_slot"

make_repo app
export BERTH_POOL_SIZE=0
ws=$(berth new live)
echo "uncommitted" >"$ws/wip.txt"
# A slot made on a branch that is then deleted: its base is gone.
git checkout -q -b side
commit_file side.txt side
BERTH_POOL_SIZE=1 berth pool fill >/dev/null
side=$(git rev-parse HEAD)
git checkout -q -
git branch -q -D side
stale=$(berth --json pool status | jq -r '.slots[0].path')
# Three more at today's commit: one loses its record, one its directory, one stays.
BERTH_POOL_SIZE=4 berth pool fill >/dev/null
mapfile -t fresh < <(berth --json pool status | jq -r --arg c "$side" '.slots[] | select(.commit != $c) | .id')
unclaimed=$(berth --json pool status | jq -r --arg id "${fresh[0]}" '.slots[] | select(.id == $id) | .path')
rm .git/berth/pool/"${fresh[0]}".json
nodir=$(berth --json pool status | jq -r --arg id "${fresh[1]}" '.slots[] | select(.id == $id) | .path')
rm -rf "$nodir"
keep=$(berth --json pool status | jq -r --arg id "${fresh[2]}" '.slots[] | select(.id == $id) | .path')
# A slot being filled by a live process, at the gone base: in use, never touched.
sleep 60 &
filler=$!
printf '{"id":"slot-busy","path":"%s","commit":"%s","state":"filling","created":1,"pid":%d}\n' \
  "$(dirname "$keep")/slot-busy" "$side" "$filler" >.git/berth/pool/slot-busy.json

pool_items() {
  jq -r --arg l "$1" '[.[$l][] | select(.kind == "pool-slot") | "\(.path) \(.reason)"] | sort | .[]' <<<"$2"
}
before=$(fingerprint)
dry=$(berth --json gc --dry-run)
assert_unchanged "$before"
removed=$(pool_items removed "$dry")
assert_contains "$removed" "$stale its base commit ${side:0:12} is on no branch or tag any more"
assert_contains "$removed" "$unclaimed a pool slot no record claims"
assert_contains "$removed" "$nodir its directory is gone"
assert_contains "$removed" "$gone_slot a pool slot of a repository that no longer exists"
assert_eq "$(wc -l <<<"$removed")" 4 "four orphan slots"
assert_contains "$(pool_items skipped "$dry")" "slot-busy in use: process $filler is filling it"

real=$(berth --json gc)
assert_eq "$(pool_items removed "$real")" "$removed" "the real run removes what the dry run said"
for gone in "$stale" "$unclaimed" "$gone_slot"; do not 1 test -e "$gone"; done
assert_eq "$(berth --json pool status | jq -r '[.slots[].id] | sort | join(" ")')" \
  "$(printf '%s\n' "${fresh[2]}" slot-busy | sort | paste -sd' ')" "the fresh slot and the busy one stay"
test -d "$keep"
assert_eq "$(cat "$ws/wip.txt")" "uncommitted"
assert_eq "$(cat "$gone_ws/wip.txt")" "their work" "another project's workspace is never touched"
# git knows no worktree of the removed slots any more.
assert_not_contains "$(git worktree list --porcelain)" "$unclaimed"
assert_not_contains "$(git worktree list --porcelain)" "$nodir"
kill "$filler"
rm .git/berth/pool/slot-busy.json
pool_quiesce

# The automatic pass (`berth gc --auto`, what the background filler runs after new/discard) is
# light: never a workspace, even an idle one or one whose directory is gone, and bounded in time:
# each kind's loop checks the clock before each item and no kind starts once the time is up
# (BERTH_TEST_GC_AUTO_MS makes the bound 0 here: nothing is done, at once; whatever is left is
# for the next pass, which here does it all).
. "$(dirname "$0")/common.sh"
make_repo app

berth new idle >/dev/null
gone=$(berth new gone)
rm -rf "$gone"
for round in 1 2; do
  ws=$(berth new x)
  echo "round $round" >"$ws/f.txt"
  berth discard x >/dev/null
  sleep 1 # another second: another snapshot
done
mkdir -p .git/berth/shadow
for i in $(seq 300); do echo x >".git/berth/shadow/old-$i.key"; done
export BERTH_TRASH_KEEP=1 BERTH_TRASH_KEEP_DAYS=0

before=$(fingerprint)
out=$(BERTH_TEST_GC_AUTO_MS=0 berth --json gc --auto --older-than 0s)
assert_eq "$(jq '.removed | length' <<<"$out")" 0 "out of time at once: nothing done"
assert_unchanged "$before"
assert_eq "$(find .git/berth/shadow -name 'old-*' | wc -l)" 300

start=${EPOCHREALTIME/./}
out=$(berth --json gc --auto --older-than 0s)
elapsed=$(((${EPOCHREALTIME/./} - start) / 1000)) # ms
assert_eq "$(jq '[.removed[] | select(.kind == "shadow" and (.path | contains("/old-")))] | length' \
  <<<"$out")" 300
assert_eq "$(jq -r '[.removed[] | select(.kind == "snapshot")] | length' <<<"$out")" 1
assert_eq "$(jq '[.removed[], .skipped[] | select(.kind == "workspace")] | length' <<<"$out")" 0 \
  "never a workspace"
assert_eq "$(berth --json list | jq -r '[.[].name] | sort | join(" ")')" "gone idle"
((elapsed < 6000)) || { echo "the pass took $elapsed ms" >&2; exit 1; }

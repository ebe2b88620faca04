#!/usr/bin/env bash
# A workspace made of a pool slot is looked at in its new place by the background pass its
# take starts (also with pool.size = 0, a slot left from before): git keeps its untracked cache
# for the slot's path only, so without that look the first status or snapshot of the agent's work
# (a pick's, a compare's, a discard's) lists every folder of the tree again.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app 40

# The status berth runs for NAME (through its shadow index) must not list the folders again:
# the nodes its untracked cache had to make (every folder's, when the cache was of another
# place) and the folders it opened (those of the changed paths, when it was of this one).
assert_not_walked() {
  rm -f "$T/perf"
  GIT_TRACE2_PERF=$T/perf berth status "$1" >/dev/null
  local made opened
  made=$(awk -F'node-creation:' 'NF > 1 { n += $2 } END { print n + 0 }' "$T/perf")
  opened=$(awk -F'opendir:' 'NF > 1 { n += $2 } END { print n + 0 }' "$T/perf")
  grep -q 'read_directo' "$T/perf" || { echo "no status through the watcher for $1" >&2; return 1; }
  assert_eq "$made" 0 "untracked-cache nodes made by $1's first status after an edit"
  ((opened <= 3)) || { echo "$1's first status opened $opened folders" >&2; return 1; }
}

# A pool kept: new takes a slot, the refill's pass looks at the workspace first.
export BERTH_POOL_SIZE=2
berth pool fill >/dev/null
ws=$(berth new x)
wait_for_fillers
echo edit >>"$ws/files/3/f3.txt"
echo new >"$ws/files/4/new.txt"
assert_not_walked x
assert_contains "$(berth --json status x)" '"untracked"'

# A fork's attempts from slots left in a pool no longer kept (pool.size = 0): the take starts the
# pass all the same; it fills nothing.
berth pool fill >/dev/null
wait_for_fillers
slots=$(berth --json pool status | jq .ready)
((slots >= 2)) || { echo "the pool holds $slots slots" >&2; false; }
BERTH_POOL_SIZE=0 berth fork try -n 2 >/dev/null
wait_for_fillers
assert_eq "$(BERTH_POOL_SIZE=0 berth --json pool status | jq .ready)" $((slots - 2)) "slots after the fork"
for i in 1 2; do
  echo "attempt $i" >>"$(berth path "try-$i")/files/5/f5.txt"
  assert_not_walked "try-$i"
done
pool_quiesce

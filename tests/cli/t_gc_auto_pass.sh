# The automatic gc pass: after `new`/`discard`, the detached background filler drops expired trash
# (beyond the newest trash.keep per name, trash.keep_days old) and orphan shadow indexes, never
# a workspace, without the caller waiting; `gc.auto = false` turns it off. With no pool (no
# filler), a discard that leaves expired trash starts the pass on its own.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app

ws=$(berth new x)
echo one >"$ws/f.txt"
berth discard x >/dev/null
sleep 1 # the second snapshot in another second: another ref name
ws=$(berth new x)
echo two >"$ws/f.txt"
berth discard x >/dev/null
newest=$(git for-each-ref --sort=-refname --count=1 --format='%(refname)' refs/berth/trash/x/)
mkdir -p .git/berth/shadow && echo x >.git/berth/shadow/old-ws.key
snapshots() { git for-each-ref --format='%(refname)' "refs/berth/trash/$1/" | wc -l; }
# (The filler inherits the environment: it is where these settings reach it.)
# expiring [VAR=VALUE...] -- BERTH-ARGS...
expiring() {
  (
    export BERTH_POOL_SIZE=1 BERTH_TRASH_KEEP=1 BERTH_TRASH_KEEP_DAYS=0
    while [[ $1 != -- ]]; do export "${1?}"; shift; done
    shift
    berth "$@"
  )
}

# Off: the filler runs (it fills the pool) but removes nothing.
expiring BERTH_GC_AUTO=false -- new keep >/dev/null
wait_for_fillers
assert_eq "$(snapshots x)" 2 "snapshots with gc.auto = false"
test -e .git/berth/shadow/old-ws.key

# On (the default): the pass after this discard drops the older snapshot and the orphan.
expiring -- discard keep >/dev/null
wait_for_fillers
assert_eq "$(snapshots x)" 1 "snapshots after the automatic pass"
assert_eq "$(git for-each-ref --format='%(refname)' refs/berth/trash/x/)" "$newest" "the newest stays"
assert_eq "$(snapshots keep)" 1 "the newest of another name stays"
not 1 test -e .git/berth/shadow/old-ws.key
assert_eq "$(git cat-file blob "$newest:f.txt")" two
pool_quiesce

# No pool (pool.size = 0, no filler): the discard that leaves expired trash starts the pass.
nopool() {
  (
    export BERTH_POOL_SIZE=0 BERTH_TRASH_KEEP=1 BERTH_TRASH_KEEP_DAYS=0
    while [[ $1 != -- ]]; do export "${1?}"; shift; done
    shift
    berth "$@"
  )
}
light_passes() { pgrep -f -- "-C $T/.* gc --auto" || true; }
wait_for_light_pass() {
  for ((i = 0; i < 200; i++)); do [[ -z $(light_passes) ]] && return 0; sleep 0.05; done
  return 1
}
for auto in false true; do
  ws=$(berth new y)
  echo "one $auto" >"$ws/f.txt"
  nopool -- discard y >/dev/null
  sleep 1 # the second snapshot in another second
  ws=$(berth new y)
  echo "two $auto" >"$ws/f.txt"
  nopool BERTH_GC_AUTO=$auto -- discard y >/dev/null
  newest=$(git for-each-ref --sort=-refname --count=1 --format='%(refname)' refs/berth/trash/y/)
  if [[ $auto == false ]]; then
    sleep 1
    assert_eq "$(snapshots y)" 2 "no pool, gc.auto = false"
    assert_eq "$(light_passes)" "" "no pass started"
  else
    for ((i = 0; i < 100; i++)); do [[ $(snapshots y) == 1 ]] && break; sleep 0.05; done
    assert_eq "$(git for-each-ref --format='%(refname)' refs/berth/trash/y/)" "$newest" \
      "no pool: the newest stays, the older ones go"
    assert_eq "$(git cat-file blob "$newest:f.txt")" "two true"
    wait_for_light_pass
  fi
done

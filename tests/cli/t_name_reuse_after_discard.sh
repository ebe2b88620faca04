# A name is free again the moment `discard` returns: `restore x` or `new x` right after
# `discard x` works while the discarded tree still waits for the background deleter (git would
# otherwise say "'berth/x' is already checked out at …/.trash/…"), without and with a pool, one
# after the other and ten pairs at once; and a refused attempt leaves no branch behind.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app 20

# Keeps the background deleter waiting (it takes this lock before it looks at a tree), so
# discarded trees are certainly still there when the name is used again.
pool_dir=$(git rev-parse --git-common-dir)/berth/pool
hold_deleter() {
  mkdir -p "$pool_dir"
  # (It stops by itself when the test is gone, or after 60 s.)
  flock "$pool_dir/reap.lock" -c "touch $T/held; i=0; while [ ! -e $T/let-go ] && [ -d $T ] &&
    [ \$i -lt 1200 ]; do sleep 0.05; i=\$((i + 1)); done" &
  holder=$!
  wait_for_file "$T/held"
}
let_deleter_go() {
  touch "$T/let-go"
  wait "$holder"
  rm -f "$T/let-go" "$T/held"
}

reuse() { # NAME: discard, then restore at once; discard, then new at once
  local ws
  ws=$(berth new "$1")
  echo "work of $1" >"$ws/work.txt"
  berth discard "$1" >/dev/null 2>&1
  ws=$(berth restore "$1")
  assert_eq "$(cat "$ws/work.txt")" "work of $1" "restored work of $1"
  berth discard "$1" >/dev/null 2>&1
  ws=$(berth new "$1")
  [[ ! -e $ws/work.txt ]]
  berth discard "$1" >/dev/null 2>&1
}

# Without a pool (the tree is deleted before discard returns) and with one (the deleter does it).
reuse plain
export BERTH_POOL_SIZE=2
berth pool fill >/dev/null
hold_deleter
reuse pooled
[[ -n $(ls "$(dirname "$(berth pool --json | jq -r .dir)")/.trash") ]] # really still waiting
let_deleter_go
wait_for_fillers

# The pool given as a flag, not in the environment.
unset BERTH_POOL_SIZE
hold_deleter
ws=$(berth -c pool.size=2 new flagged)
berth -c pool.size=2 discard flagged >/dev/null 2>&1
berth -c pool.size=2 restore flagged >/dev/null
berth -c pool.size=2 discard flagged >/dev/null 2>&1
berth -c pool.size=2 new flagged >/dev/null
let_deleter_go
wait_for_fillers
berth discard flagged >/dev/null 2>&1

# Ten pairs at once, each on its own name: discard then restore; and discard then new.
pairs=()
for i in $(seq 10); do
  BERTH_POOL_SIZE=0 berth new "p$i" >/dev/null &
  pairs+=($!)
done
wait "${pairs[@]}"
export BERTH_POOL_SIZE=2
hold_deleter
pairs=()
for i in $(seq 10); do
  (berth discard "p$i" >/dev/null 2>&1 && berth restore "p$i" >"$TMPDIR/restore-$i" 2>&1 ||
    echo "pair $i failed" >>"$TMPDIR/failed") &
  pairs+=($!)
done
wait "${pairs[@]}"
[[ ! -e $TMPDIR/failed ]] || { cat "$TMPDIR/failed" "$TMPDIR"/restore-*; false; }
pairs=()
for i in $(seq 10); do
  (berth discard "p$i" >/dev/null 2>&1 && berth new "p$i" >/dev/null 2>"$TMPDIR/new-$i" ||
    echo "pair $i failed" >>"$TMPDIR/failed") &
  pairs+=($!)
done
wait "${pairs[@]}"
[[ ! -e $TMPDIR/failed ]] || { cat "$TMPDIR/failed" "$TMPDIR"/new-*; false; }
assert_eq "$(berth --json list | jq -r '.[].name' | sort | tr '\n' ' ')" \
  "$(printf 'p%s\n' $(seq 10) | sort | tr '\n' ' ')" "workspaces"
let_deleter_go
wait_for_fillers
for i in $(seq 10); do BERTH_POOL_SIZE=0 berth discard "p$i" >/dev/null 2>&1; done
pool_quiesce
# Nothing of the discarded workspaces is left: no branch, no worktree outside the pool.
assert_eq "$(git for-each-ref refs/heads/berth/ | wc -l)" 0 "berth branches"
assert_eq "$(git worktree list --porcelain | grep -c '^worktree ' || true)" 1 "worktrees"

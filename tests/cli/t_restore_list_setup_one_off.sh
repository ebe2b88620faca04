#!/usr/bin/env bash
# What a workspace's set-up cloned (node_modules), copied (.env) or made with its commands (a venv,
# as the docs' recipe makes one) is counted as set-up's ("recreated by set-up"), not as lost
# ignored files, even when only that `berth new` was told to clone it (`-c setup.clone=...`, as a
# script or an orchestrator does): the workspace's record keeps what its set-up made, and its
# snapshot says it to the background deleter. With a warm pool (the deleter counts) and without
# one (discard counts, and `restore --list` shows that count too).
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app
printf 'node_modules/\n.env\n.venv/\n' >.gitignore
echo 'TOKEN=x' >.env
git add .gitignore && git commit -qm ignore
for p in a b c; do
  mkdir -p "node_modules/$p"
  for i in 1 2 3 4 5; do echo "module $p $i" >"node_modules/$p/f$i.js"; done
done
echo 'build.log' >>"$(git rev-parse --git-common-dir)/info/exclude"
CLONE='setup.clone=["node_modules/"]'
COPY='setup.copy=[".env"]'

# one_off NAME: a workspace whose node_modules only a one-off -c named, with one ignored file of
# its own (lost work), discarded.
one_off() {
  local ws
  ws=$(berth -c "$CLONE" -c "$COPY" new "$1" 2>/dev/null)
  [[ -f $ws/node_modules/c/f5.js ]] || { echo "node_modules was not cloned" >&2; return 1; }
  [[ -f $ws/.env ]] || { echo ".env was not copied" >&2; return 1; }
  echo lost >"$ws/build.log"
  berth discard "$1" >/dev/null 2>"$T/err"
}

# counted NAME: restore --list says 1 ignored file went, and 16 that set-up recreates.
counted() {
  local out
  out=$(berth --json restore --list "$1")
  assert_eq "$(jq -r '.[0].ignored_files' <<<"$out")" 1 "[$1] ignored files (lost)"
  assert_eq "$(jq -r '.[0].setup_files' <<<"$out")" 16 "[$1] ignored files set-up recreates"
  out=$(berth restore --list "$1")
  assert_contains "$out" "1 file(s), 5 B (+16 recreated by set-up)"
  assert_not_contains "$out" "17 file(s)"
}

# With a warm pool: the tree goes to the background deleter, which counts.
export BERTH_POOL_SIZE=1
berth pool fill >/dev/null
one_off pooled
wait_for_fillers
berth pool fill >/dev/null
counted pooled

# Without one: discard counts (and says so), and restore --list shows the same count.
export BERTH_POOL_SIZE=0
one_off cold
assert_contains "$(cat "$T/err")" "1 ignored file(s), 5 B, were deleted with it"
assert_contains "$(cat "$T/err")" "16 more set-up recreates"
counted cold

# What set-up's commands make that git ignores (the venv of `uv sync`): set-up's as well; an
# ignored file there before them (the .env it copied) or made after them (by the agent) is not.
ws=$(berth -c "$COPY" -c 'setup.run=mkdir -p .venv/bin && touch .venv/pyvenv.cfg .venv/bin/python' new made 2>/dev/null)
[[ -f $ws/.venv/pyvenv.cfg ]]
echo lost >"$ws/build.log"
berth discard made >/dev/null 2>&1
out=$(berth --json restore --list made)
assert_eq "$(jq -r '.[0].setup_files' <<<"$out")" 3 "[made] set-up's files (.venv's 2, .env)"
assert_eq "$(jq -r '.[0].ignored_files' <<<"$out")" 1 "[made] ignored files (lost)"

# Restored (as any workspace: set-up from the configuration of today, here none), then discarded:
# nothing of set-up's left to count.
berth restore cold >/dev/null 2>&1
berth discard cold >/dev/null 2>&1
assert_eq "$(berth --json restore --list cold | jq -r '.[0].setup_files')" 0 "set-up files of a workspace without set-up"
BERTH_POOL_SIZE=1 pool_quiesce

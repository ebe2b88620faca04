#!/usr/bin/env bash
# A folder .worktreeinclude copies file by file (node_modules/: thousands of files in hundreds of
# folders) is one line of set-up's output, not one per folder, and its files count as set-up's in
# `restore --list` ("recreated by set-up"), not as lost work — while they are still the copies: a
# file the agent added there, or a copied one it changed, is counted as not saved. With a warm
# pool (the background deleter counts) and without one (discard counts).
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app
printf 'node_modules/\n' >.gitignore
printf 'node_modules/\n' >.worktreeinclude
git add .gitignore .worktreeinclude && git commit -qm include
for p in a b/c b/d/e .bin; do
  mkdir -p "node_modules/$p"
  for i in 1 2 3; do echo "module $p $i" >"node_modules/$p/f$i.js"; done
done
# 12 files in 7 folders.

# made NAME: a workspace whose set-up copied node_modules, said in one line; the agent then adds
# a file there and changes a copied one; discarded.
made() {
  local ws
  ws=$(berth new "$1" 2>"$T/err")
  [[ -f $ws/node_modules/b/d/e/f3.js ]] || { echo "node_modules was not copied" >&2; return 1; }
  assert_eq "$(grep -c 'copied node_modules' "$T/err")" 1 "[$1] copy lines"
  assert_contains "$(cat "$T/err")" "copied node_modules/ (12 files"
  echo debug >"$ws/node_modules/b/c/debug.log"
  echo patched >>"$ws/node_modules/a/f1.js"
  berth discard "$1" >/dev/null 2>"$T/err"
}

# counted NAME: 2 ignored files went (the added one, the changed one), 11 set-up recreates.
counted() {
  local out
  out=$(berth --json restore --list "$1")
  assert_eq "$(jq -r '.[0].ignored_files' <<<"$out")" 2 "[$1] ignored files (lost)"
  assert_eq "$(jq -r '.[0].setup_files' <<<"$out")" 11 "[$1] ignored files set-up recreates"
  assert_contains "$(berth restore --list "$1")" "(+11 recreated by set-up)"
}

export BERTH_POOL_SIZE=1
berth pool fill >/dev/null
made pooled
wait_for_fillers
berth pool fill >/dev/null
counted pooled

export BERTH_POOL_SIZE=0
made cold
assert_contains "$(cat "$T/err")" "2 ignored file(s), 25 B, were deleted with it"
counted cold

# Untouched, nothing is lost, and the discard says so.
berth new clean >/dev/null 2>&1
berth discard clean >/dev/null 2>"$T/err"
assert_not_contains "$(cat "$T/err")" "were deleted with it"
assert_contains "$(cat "$T/err")" "12 ignored file(s) of its set-up (copies) went with it"
out=$(berth --json restore --list clean)
assert_eq "$(jq -r '.[0].ignored_files' <<<"$out")" 0 "[clean] ignored files (lost)"
assert_eq "$(jq -r '.[0].setup_files' <<<"$out")" 12 "[clean] ignored files set-up recreates"

# Only a part named: the line names that part.
printf 'node_modules/.bin/\n' >.worktreeinclude
git commit -qam 'only .bin'
ws=$(berth new bin 2>"$T/err")
[[ -f $ws/node_modules/.bin/f1.js && ! -e $ws/node_modules/a ]]
assert_contains "$(cat "$T/err")" "copied node_modules/.bin/ (3 files"
BERTH_POOL_SIZE=1 pool_quiesce

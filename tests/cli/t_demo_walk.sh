#!/usr/bin/env bash
# scripts/demo (README's first command) walks the lifecycle to the end: new, diff, accept,
# discard, restore, fork, compare (with its page), pick; each step shows what it printed.
. "$(dirname "$0")/common.sh"
out=$("$SOURCE_DIR/scripts/demo" --with "$(dirname "$BERTH_BIN")" 2>&1) ||
  { echo "$out" >&2; echo "scripts/demo failed" >&2; false; }
for step in 'berth new fix-total' 'berth accept fix-total' 'berth restore add-readme' \
  "berth fork tax -n 3 -- sh -c 'printf" 'berth compare tax --html' 'berth pick tax-2'; do
  assert_contains "$out" "\$ $step"
done
assert_contains "$out" "staged 1 file(s) of 'fix-total'"
assert_contains "$out" "review page: "
assert_contains "$out" "RATE = 0.02"
# Its scratch folder is gone, and nothing of it runs on.
assert_eq "$(find "$TMPDIR" -maxdepth 1 -name 'berth-demo.*' | wc -l)" 0 "scratch folders left"
assert_eq "$(pgrep -f -- "$TMPDIR/berth-demo" || true)" "" "processes of the demo left"

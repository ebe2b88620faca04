#!/usr/bin/env bash
# `berth list` on a terminal fits its width (COLUMNS, else the terminal's): the path column
# shortens in its middle, or leaves (a last line says so) and long names shorten, wide characters
# counting two columns; `--wide` shows every cell whole. Not on a terminal every cell is whole
# whatever COLUMNS says, so that what scripts read does not depend on a window (berth.1, list).
. "$(dirname "$0")/common.sh"
. "$TESTS_DIR/tty_helpers.sh"
# Wide characters in the project's folder, so in every workspace's path; and in an owner.
make_repo 'app-名前-ünï'
long=a-very-long-workspace-name-that-goes-on-and-on-for-quite-a-while-yet
berth new "$long" >/dev/null
berth new fix --owner '名前さん' >/dev/null
berth new short >/dev/null
before=$(fingerprint)

out=$(COLUMNS=80 on_tty "$BERTH_BIN list" | plain)
assert_eq "$(( $(widest <<<"$out") <= 80 ))" 1 "fits 80 columns: $out"
assert_contains "$out" "名前さん"
assert_contains "$out" "short"
assert_contains "$out" "a-very-long"
assert_not_contains "$out" "$long"
assert_contains "$(tail -n 1 <<<"$out")" "--wide shows all"
assert_eq "$(grep -c ready <<<"$out")" 3 "one row per workspace"

# --wide: every cell whole, the path too.
out=$(COLUMNS=80 on_tty "$BERTH_BIN list --wide" | plain)
assert_contains "$out" "$long"
assert_contains "$out" "$(berth path short)"

# Room for a shortened path: shortened in its middle, the line within the width.
berth discard "$long" >/dev/null
path=$(berth path short)
cols=$((${#path} + 40))
out=$(COLUMNS=$cols on_tty "$BERTH_BIN list" | plain)
if (($(widest <<<"$out") > cols)); then
  echo "wider than $cols columns: $out" >&2
  exit 1
fi
assert_contains "$out" "…"
assert_contains "$out" "${path:0:8}"

# Not a terminal: whole cells, whatever COLUMNS says; no last line.
out=$(COLUMNS=20 berth list)
assert_contains "$out" "$path"
assert_not_contains "$out" "…"
assert_not_contains "$out" "--wide"
echo "ok: list fits the terminal, whole elsewhere"

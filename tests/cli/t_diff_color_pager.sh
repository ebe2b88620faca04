#!/usr/bin/env bash
# `berth diff` on a terminal is coloured and paged as `git diff` is: --color=auto|always|never,
# NO_COLOR, git's color.diff/color.ui, and the pager git would use (pager.diff, GIT_PAGER...);
# never a pager into a pipe or with --json, and no colour into a pipe unless --color=always.
# --no-pager prints straight out, as `git --no-pager diff`; the colours are the user's
# color.diff.<slot> settings, as git reads them (any syntax git accepts), else git's defaults.
. "$(dirname "$0")/common.sh"
. "$TESTS_DIR/tty_helpers.sh"
make_repo app
ws=$(berth new x)
printf 'one more line\n' >>"$ws/README.md"
sed -i 1d "$ws/src/main.c"
# common.sh turns colour off for every test; this one is about it.
unset NO_COLOR
# A pager that marks every line that went through it.
export GIT_PAGER='sed s/^/PAGED:/'
esc=$'\e'

out=$(on_tty "$BERTH_BIN diff x")
assert_contains "$out" "PAGED:"
assert_contains "$out" "${esc}[32m+one more line"
assert_contains "$out" "${esc}[31m-int main"
assert_contains "$(plain <<<"$out")" "PAGED:+one more line"

# Colour off: NO_COLOR, --color=never, git's color.diff (and color.ui); still paged.
for how in "NO_COLOR=1 $BERTH_BIN diff x" "$BERTH_BIN diff x --color=never"; do
  out=$(on_tty "$how")
  assert_not_contains "$out" "$esc"
  assert_contains "$out" "PAGED:+one more line"
done
for key in color.diff color.ui; do
  git config "$key" false
  assert_not_contains "$(on_tty "$BERTH_BIN diff x")" "$esc"
  git config --unset "$key"
done
# pager.diff=false: not paged, as for git diff.
git config pager.diff false
out=$(on_tty "$BERTH_BIN diff x")
assert_not_contains "$out" "PAGED:"
assert_contains "$out" "${esc}[32m+one more line"
git config --unset pager.diff

# A pager that is not installed: the diff is printed all the same.
out=$(GIT_PAGER=no-such-pager-here on_tty "$BERTH_BIN diff x")
assert_contains "$out" "+one more line"

# --json on a terminal: the document, neither paged nor coloured.
out=$(on_tty "$BERTH_BIN --json diff x")
assert_not_contains "$out" "PAGED:"
jq -e '.files | length == 2' <<<"$out" >/dev/null

# Into a pipe: plain and unpaged (git apply reads it), unless --color=always.
out=$(berth diff x)
assert_not_contains "$out" "$esc"
assert_not_contains "$out" "PAGED:"
out=$(berth diff x --color=always)
assert_contains "$out" "${esc}[32m+one more line"
assert_not_contains "$out" "PAGED:"
not 2 berth diff x --color=sometimes >/dev/null

# --no-pager: straight out, still coloured.
out=$(on_tty "$BERTH_BIN diff x --no-pager")
assert_not_contains "$out" "PAGED:"
assert_contains "$out" "${esc}[32m+one more line"

# color.diff.<slot>: as git reads it.
git config color.diff.new "bold yellow"
git config color.diff.old "#ff0000"
git config color.diff.frag "magenta ul"
out=$(on_tty "$BERTH_BIN diff x --no-pager")
assert_contains "$out" "$(git config --get-color color.diff.new)+one more line"
assert_contains "$out" "$(git config --get-color color.diff.old)-int main"
assert_contains "$out" "$(git config --get-color color.diff.frag)@@"
assert_contains "$out" "${esc}[1mdiff --git" # meta: git's default (bold)
assert_not_contains "$out" "${esc}[32m+one more line"
assert_contains "$(berth diff x --color=always)" "$(git config --get-color color.diff.new)+one more line"
echo "ok: diff is coloured and paged on a terminal only"

#!/usr/bin/env bash
# gc in a plain folder judges "landed" against the folder's private branch (accept moves it to
# the folder's new state): an accepted workspace kept with --keep is landed; no warning about a
# main checkout or --into (a plain folder has neither).
. "$(dirname "$0")/common.sh"
F=$T/folder
mkdir -p "$F"
echo one >"$F/a.txt"
cd "$F"
ws=$(berth new b)
echo two >>"$ws/a.txt"
berth commit b -m "two" >/dev/null
berth accept b --keep >/dev/null
assert_eq "$(cat "$F/a.txt")" "one
two"
berth new idle >/dev/null
out=$(berth --json gc --dry-run 2>"$T/gc.err")
assert_eq "$(cat "$T/gc.err")" "" "gc's stderr"
assert_eq "$(jq -r '[.removed[] | select(.kind == "workspace") | "\(.category) \(.name)"] | join(",")' <<<"$out")" "landed b"
assert_eq "$(jq -r '.warnings | length' <<<"$out")" 0 "warnings"
berth gc >/dev/null
assert_eq "$(berth --json list | jq -r '[.[].name] | join(",")')" idle
[[ ! -e $F/.git ]]

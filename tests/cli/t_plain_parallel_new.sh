#!/usr/bin/env bash
# Several `berth new` at once in a folder berth has not kept before: one private repository is
# made (the others wait, then find it), and every workspace is in it: all listed, each usable,
# `doctor` clean.
. "$(dirname "$0")/common.sh"
F=$T/folder
mkdir -p "$F/src"
echo hello >"$F/readme.txt"
echo code >"$F/src/main.c"
cd "$F"
pids=()
for n in 1 2 3 4 5 6; do
  berth new "p$n" >"$T/new-$n.out" 2>"$T/new-$n.err" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
assert_eq "$(ls "$XDG_DATA_HOME/berth/plain" | grep -vc '^by-path$')" 1 "private repositories"
assert_eq "$(berth --json list | jq -r '[.[].name] | sort | join(",")')" "p1,p2,p3,p4,p5,p6"
for n in 1 2 3 4 5 6; do
  assert_eq "$(cat "$(berth path "p$n")/readme.txt")" hello "p$n's files"
done
berth doctor >/dev/null
[[ ! -e $F/.git ]]

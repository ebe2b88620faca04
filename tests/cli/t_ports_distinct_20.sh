#!/usr/bin/env bash
# 20 workspaces made in parallel get 20 distinct, non-overlapping blocks of 10 ports.
. "$(dirname "$0")/common.sh"
make_repo app
for i in $(seq 1 20); do berth new "w$i" >/dev/null & done
wait
ports=$(berth --json list | jq -r '.[].port')
assert_eq "$(wc -l <<<"$ports")" 20 "workspaces"
assert_eq "$(sort -u <<<"$ports" | wc -l)" 20 "distinct blocks"
prev=0
for p in $(sort -n <<<"$ports"); do
  ((p >= prev + 10)) || { echo "blocks overlap: $prev and $p" >&2; false; }
  ((p >= 20000 && p + 9 <= 29999))
  prev=$p
done
# What the commands see is the block recorded.
assert_eq "$(berth run w7 -- sh -c 'echo $BERTH_PORT')" "$(berth --json status w7 | jq -r .port)" "w7"

#!/usr/bin/env bash
# `forget --force` right after a `discard` in a plain folder, with the warm pool on (its
# background filler still at work): forget waits for the filler's pass, stops the watcher, and
# removes everything — no private repository, no skeleton of one written again afterwards, no
# workspace root, no process of it left.
. "$(dirname "$0")/common.sh"
plain_area=$XDG_DATA_HOME/berth/plain
for k in 1 2 3; do
  F=$T/folder$k
  mkdir -p "$F"
  for i in $(seq 1 200); do echo "$i" >"$F/f$i.txt"; done
  cd "$F"
  berth -c pool.size=2 new a >/dev/null
  echo work >"$(berth path a)/work.txt"
  berth -c pool.size=2 discard a >/dev/null
  sleep "0.$k"
  berth -c pool.size=2 forget --force >/dev/null
done
# What a filler or watcher still at work would write (none is left: forget waited for the
# filler's pass and stopped the watcher) by the time it is gone: one that is still there is
# waited for, up to 2 s, and then named below.
for ((i = 0; i < 40; i++)); do
  [[ -z $(pgrep -f -- "$T/" || true) ]] && break
  sleep 0.05
done
assert_eq "$(ls "$plain_area" | grep -v '^by-path$' || true)" "" "private repositories left"
assert_eq "$(ls "$HOME/berth" 2>/dev/null || true)" "" "workspace roots left"
assert_eq "$(pgrep -f -- "$plain_area/" || true)" "" "processes of the forgotten repositories"
for k in 1 2 3; do [[ ! -e $T/folder$k/.git ]]; done

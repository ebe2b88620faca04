#!/usr/bin/env bash
# A sibling whose own commit moved a submodule to a commit that exists only in the sibling's
# module repository (nothing uncommitted: its status names no submodule work) loses nothing when
# a pick discards it with the others: the batch finds the gitlinks the siblings' commits changed
# (one diff-tree for all) and keeps that module commit in the trash, and `restore` brings the
# submodule back on it.
. "$(dirname "$0")/common.sh"
make_repo_with_submodule
berth fork t -n 3 >/dev/null
echo picked >"$(berth path t-1)/answer.txt"

moved() { # moved NAME: a commit in the submodule, recorded by a commit of the workspace
  local ws
  ws=$(berth path "$1")
  git -C "$ws/third_party/x" commit -q --allow-empty -m "only in $1"
  git -C "$ws" add third_party/x
  git -C "$ws" commit -qm "move the submodule in $1"
  git -C "$ws/third_party/x" rev-parse HEAD
}
c2=$(moved t-2)
c3=$(moved t-3)
for c in "$c2" "$c3"; do assert_eq "$(git cat-file -t "$c" 2>/dev/null || echo missing)" missing "only in the module"; done
assert_eq "$(git -C "$(berth path t-2)" status --porcelain)" "" "nothing uncommitted"

berth pick t-1 >/dev/null
for c in "$c2" "$c3"; do git cat-file -e "$c^{commit}"; done
berth restore t-2 >/dev/null 2>&1
berth restore t-3 >/dev/null 2>&1
assert_eq "$(git -C "$(berth path t-2)/third_party/x" rev-parse HEAD)" "$c2" "t-2's submodule"
assert_eq "$(git -C "$(berth path t-3)/third_party/x" rev-parse HEAD)" "$c3" "t-3's submodule"

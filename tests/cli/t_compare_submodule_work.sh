#!/usr/bin/env bash
# Attempts that changed files inside a submodule: compare says so per attempt (JSON `nested`, a
# line under the text table, a list on the review page), since that work is not in the files,
# the counts or the similarity; the attempt that only touched the superproject has none.
. "$(dirname "$0")/common.sh"
make_repo_with_submodule
berth fork sub -n 3 -- sh -c 'case $BERTH_ATTEMPT in
  1) echo "one" >>third_party/x/lib.c ;;
  2) echo "two" >third_party/x/new.txt; echo top >top.txt ;;
  3) echo top >top.txt ;;
esac' >/dev/null 2>&1

json=$(berth --json compare sub)
assert_eq "$(jq -c '[.attempts[] | [.name, (.nested | map([.path, .modified, .untracked]))]]' <<<"$json")" \
  '[["sub-1",[["third_party/x",true,false]]],["sub-2",[["third_party/x",false,true]]],["sub-3",[]]]'
# The files of the submodule are in no attempt's counts.
assert_eq "$(jq -c '[.attempts[].files_changed]' <<<"$json")" '[0,1,1]'
# sub-2 and sub-3 changed the superproject alike, but sub-2 has work inside the submodule: not
# known to be identical.
assert_eq "$(jq -r '.pairs[] | select(.a == "sub-2" and .b == "sub-3") | .relation' <<<"$json")" overlapping

text=$(berth compare sub)
assert_contains "$text" "sub-1: submodule third_party/x: uncommitted changes (not counted above)"
assert_contains "$text" "sub-2: submodule third_party/x: untracked files (not counted above)"
not 1 grep -q "^sub-3:" <<<"$text"

berth compare sub --html "$T/page.html" >/dev/null
page=$(cat "$T/page.html")
assert_contains "$page" '<ul id="nested">'
assert_contains "$page" "<li>sub-1: submodule third_party/x: uncommitted changes</li>"
not 1 grep -q "<li>sub-3" <<<"$page"

# Nothing of the attempts changed by looking.
assert_eq "$(cat "$(berth path sub-2)/third_party/x/new.txt")" two

#!/usr/bin/env bash
# compare: a rename changes two paths. Renaming x where another attempt deletes x is no disjoint
# pair (both touched x; landing both conflicts); two attempts that made the same rename are
# identical; `files` lists the old path; the review page says where a renamed file came from.
. "$(dirname "$0")/common.sh"
make_repo app
seq 1 50 >x.txt
git add x.txt && git commit -qm x
berth fork rd -n 3 -- sh -c \
  'if [ "$BERTH_ATTEMPT" = 2 ]; then git rm -q x.txt; else git mv x.txt y.txt; fi' >/dev/null 2>&1
doc=$(berth --json compare rd --html "$T/page.html")
pair() { jq -r --arg a "$1" --arg b "$2" '.pairs[] | select(.a == $a and .b == $b) | .relation + " " + (.shared_files | join(","))' <<<"$doc"; }
assert_eq "$(pair rd-1 rd-2)" "overlapping x.txt"
assert_eq "$(pair rd-2 rd-3)" "overlapping x.txt"
assert_eq "$(pair rd-1 rd-3)" "identical x.txt,y.txt"
assert_eq "$(jq -c '[.files[] | [.path, (.attempts | join(","))]]' <<<"$doc")" \
  '[["x.txt","rd-1,rd-2,rd-3"],["y.txt","rd-1,rd-3"]]'
assert_contains "$(berth compare rd)" "x.txt  rd-1, rd-2, rd-3"
page=$(cat "$T/page.html")
assert_contains "$page" "renamed from x.txt"
assert_contains "$page" "renamed to y.txt"

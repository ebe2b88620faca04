#!/usr/bin/env bash
# An attempt that cannot be read (its directory gone, its branch deleted, a file it cannot read)
# does not fail the comparison: it gets its own error (a code) in its row, text and JSON, and the
# others are compared; compare exits 0. Only when no attempt can be read does compare fail.
. "$(dirname "$0")/common.sh"
make_repo app
berth fork t -n 4 >/dev/null
for i in 1 2 3 4; do echo "same" >"$(berth path "t-$i")/shared.txt"; done
echo one >"$(berth path t-1)/a.txt"
rm -rf "$(berth path t-2)"                   # its directory gone
git update-ref -d refs/heads/berth/t-3        # its branch deleted
# A file it committed cannot be read: its object is corrupt. (An unreadable file, chmod 000,
# cannot be made as root, who reads it anyway; this reaches the same path: git fails to read it.)
echo "only in t-4" >"$(berth path t-4)/four.txt"
git -C "$(berth path t-4)" add four.txt && git -C "$(berth path t-4)" commit -qm four
blob=$(git -C "$(berth path t-4)" rev-parse HEAD:four.txt)
object=$(git rev-parse --git-common-dir)/objects/${blob:0:2}/${blob:2}
chmod u+w "$object" && echo garbage >"$object"
berth new t-5 >/dev/null                      # (not an attempt: compared by name below)
echo same >"$(berth path t-5)/shared.txt"

doc=$(berth --json compare t)
row() { jq -c --arg n "$1" ".attempts[] | select(.name == \$n) | $2" <<<"$doc"; }
assert_eq "$(row t-1 '[.error, .files_changed]')" '[null,2]'
for n in t-2 t-3 t-4; do
  code=$(row "$n" '.error.code' | tr -d '"')
  [[ -n $code && $code != null ]] || { echo "$n: no error code in its row" >&2; false; }
  assert_eq "$(row "$n" '[.head, .files_changed, .files]')" '[null,0,[]]' "$n"
done
assert_eq "$(row t-2 '.error.code')" '"not_found"'
assert_eq "$(row t-3 '.error.code')" '"branch_missing"'
# Only the readable attempt is compared: no pair, and every file is t-1's alone.
assert_eq "$(jq -c '[(.pairs | length), ([.files[].attempts[]] | unique)]' <<<"$doc")" '[0,["t-1"]]'

# Text: the row says unreadable, and a line below names its error and code.
out=$(berth compare t)
grep -Eq '^t-2 +unreadable' <<<"$out"
grep -Eq '^t-2 cannot be read: .*\[not_found\]$' <<<"$out"
grep -Eq '^t-3 cannot be read: .*\[[a-z_]+\]$' <<<"$out"
grep -Eq '^t-1 +- +2 ' <<<"$out"

# Named explicitly: the same; the readable two are compared with each other.
doc=$(berth --json compare t-1 t-2 t-5)
assert_eq "$(row t-2 '.error.code')" '"not_found"'
assert_eq "$(jq -c '[.pairs[] | [.a, .b, .relation]]' <<<"$doc")" '[["t-1","t-5","overlapping"]]'
# With --test, the unreadable one runs nothing.
doc=$(berth --json compare t-1 t-2 t-5 --test -- true)
assert_eq "$(jq -c '[.attempts[].test | if . == null then null else .exit_code end]' <<<"$doc")" '[0,null,0]'
# The review page has its row, with the error.
berth compare t --html "$T/page.html" >/dev/null
grep -q 'cannot be read: .*\[not_found\]' "$T/page.html"

# Nothing readable: no comparison; the first attempt's error. A name nobody has is still refused.
expect_error not_found 4 berth --json compare t-2 t-3 >/dev/null
expect_error not_found 4 berth --json compare t-1 nosuch >/dev/null

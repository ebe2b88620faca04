# `berth list --overlaps` names the pairs of live workspaces that change the same files (committed
# or not), says whether they merge cleanly, and leaves out pairs with disjoint changes; list
# --json --overlaps carries an `overlaps` field per workspace. Nothing is changed by asking.
. "$(dirname "$0")/common.sh"
make_repo app
printf '1\n2\n3\n4\n5\n6\n7\n8\n9\n' >lines.txt
git add lines.txt && git commit -q -m lines
wa=$(berth new a)
wb=$(berth new b)
wc=$(berth new c)
sed -i 's/^2$/two/' "$wa/lines.txt"                          # a: top of lines.txt, uncommitted
cd "$wb" && sed -i 's/^8$/eight/' lines.txt && git commit -qam "b edits" && cd "$T/app" # b: bottom
echo c >"$wc/c-only.txt"                                      # c: a file nobody else touches
before=$(fingerprint)
before_a=$(fingerprint "$wa")

out=$(berth list --overlaps)
assert_contains "$out" "a and b both change 1 file(s): they merge cleanly"
assert_contains "$out" "    lines.txt"
assert_not_contains "$out" "c and"
assert_not_contains "$out" "and c "

json=$(berth --json list --overlaps)
assert_eq "$(jq -c '.[] | select(.name == "a") | .overlaps' <<<"$json")" \
  '[{"conflict_paths":[],"conflicts":false,"paths":["lines.txt"],"with":"b"}]'
assert_eq "$(jq -c '.[] | select(.name == "b") | [.overlaps[].with]' <<<"$json")" '["a"]'
assert_eq "$(jq -c '.[] | select(.name == "c") | .overlaps' <<<"$json")" '[]'
# Without --overlaps, no such field.
assert_eq "$(berth --json list | jq '[.[] | has("overlaps")] | any')" false
assert_unchanged "$before"
assert_unchanged "$before_a" "$wa"

# No overlap at all: said plainly.
berth discard b >/dev/null
assert_contains "$(berth list --overlaps)" "no overlaps"

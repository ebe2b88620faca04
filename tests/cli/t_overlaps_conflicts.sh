# Two workspaces editing the same lines are flagged as conflicting in `list --overlaps`, with the
# conflicting paths; a path both change compatibly is listed but not marked; landed workspaces no
# longer count.
. "$(dirname "$0")/common.sh"
make_repo app
printf '1\n2\n3\n4\n5\n6\n7\n8\n9\n' >lines.txt
git add lines.txt && git commit -q -m lines
wa=$(berth new a)
wb=$(berth new b)
echo "a's title" >"$wa/README.md"
echo "b's title" >"$wb/README.md"
sed -i 's/^1$/one/' "$wa/lines.txt"
sed -i 's/^9$/nine/' "$wb/lines.txt"

json=$(berth --json list --overlaps)
assert_eq "$(jq -c '.[] | select(.name == "a") | .overlaps[0] | [.with, .conflicts, .paths, .conflict_paths]' <<<"$json")" \
  '["b",true,["README.md","lines.txt"],["README.md"]]'
out=$(berth list --overlaps)
assert_contains "$out" "a and b both change 2 file(s): they conflict"
assert_contains "$out" "    README.md (conflict)"
grep -qx '    lines.txt' <<<"$out"

# Once a has landed (kept), it no longer overlaps with anything live.
berth accept a --strategy merge --keep >/dev/null
assert_eq "$(berth --json list --overlaps | jq -c '[.[].overlaps | length]')" '[0,0]'

# `restore --list [NAME]` shows the snapshots, newest first; restore takes the newest.
. "$(dirname "$0")/common.sh"
make_repo app
assert_eq "$(berth restore --list)" "the trash is empty"
assert_eq "$(berth --json restore --list)" "[]"
for round in first second; do
  ws=$(berth new x)
  echo "$round" >"$ws/round.txt"
  berth discard x >/dev/null
done
berth new y >/dev/null && berth discard y >/dev/null

json=$(berth --json restore --list)
assert_eq "$(jq length <<<"$json")" 3
assert_eq "$(jq -r '.[0] | keys | join(",")' <<<"$json")" "base,branch,branch_tip,commit,head,head_ref,holds,ignored_bytes,ignored_files,missing,name,nested,owner,problem,ref,setup_bytes,setup_files,spec,state,time"
x=$(berth --json restore --list x)
assert_eq "$(jq -r 'map(.name) | unique | join(",")' <<<"$x")" x
assert_eq "$(jq length <<<"$x")" 2
assert_eq "$(git show "$(jq -r '.[0].ref' <<<"$x"):round.txt")" second
assert_eq "$(jq -r '.[0].ref' <<<"$x" | cut -d/ -f1-4)" refs/berth/trash/x
text=$(berth restore --list)
assert_contains "$(head -1 <<<"$text")" NAME
assert_eq "$(grep -c '^x@' <<<"$text")" 2

ws=$(berth restore x)
assert_eq "$(cat "$ws/round.txt")" second

# After a sync, `ahead` counts the agent's own commits, not the target's commits it merged in
# (nor sync's merge commit), in status and list, also once the workspace's folder is gone; and
# `status` shows what it was synced onto.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new x)
echo one >"$ws/agent.txt" && git -C "$ws" add agent.txt && git -C "$ws" commit -q -m "agent 1"
for i in 1 2 3; do commit_file "user$i.txt" "$i"; done
onto=$(git rev-parse HEAD)
berth --json sync x >/dev/null
echo two >>"$ws/agent.txt" && git -C "$ws" commit -q -am "agent 2"

status=$(berth --json status x)
assert_eq "$(jq -r .ahead <<<"$status")" 2 "ahead after a sync"
assert_eq "$(jq -r .synced <<<"$status")" "$onto" "synced"
assert_contains "$(berth status x)" "$onto"
assert_eq "$(berth --json list | jq -r '.[0].ahead')" 2 "list's ahead"
# Its folder deleted: the branch's commits, counted the same way.
rm -rf "$ws"
status=$(berth --json status x)
assert_eq "$(jq -r '.state + " " + (.ahead | tostring)' <<<"$status")" "missing 2"

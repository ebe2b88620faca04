# A directory/file conflict (the workspace makes a folder p/ where the user's branch made a file
# p, or the other way round): git names the file side `p~<commit>` (`p~HEAD` in a rebase). accept
# and sync report the user's path, p.
. "$(dirname "$0")/common.sh"

make_repo app
# The workspace adds the folder p/, the user's branch the file p.
ws=$(berth new x)
mkdir "$ws/p"
echo inside >"$ws/p/x.txt"
berth commit x -m "folder p" >/dev/null
commit_file p "a file"
before=$(fingerprint)
for strategy in merge squash rebase apply; do
  out=$(expect_conflict berth --json accept x --strategy "$strategy")
  assert_eq "$(jq -c .conflicts <<<"$out")" '["p"]' "accept --strategy $strategy paths"
done
assert_unchanged "$before"
out=$(expect_conflict berth --json sync x)
assert_eq "$(jq -c .conflicts <<<"$out")" '["p"]' "sync paths"
git -C "$ws" merge --abort
out=$(expect_conflict berth --json sync x --rebase)
assert_eq "$(jq -c .conflicts <<<"$out")" '["p"]' "sync --rebase paths"
git -C "$ws" rebase --abort
# The text form names it too.
not 3 berth accept x --strategy merge
assert_not_contains "$(last_stderr)" "p~"

# The other way round: the workspace adds the file q, the user's branch the folder q/.
ws=$(berth new y)
echo "a file" >"$ws/q"
berth commit y -m "file q" >/dev/null
mkdir q
commit_file q/inside.txt inside
out=$(expect_conflict berth --json accept y --strategy merge)
assert_eq "$(jq -c .conflicts <<<"$out")" '["q"]' "accept paths"
out=$(expect_conflict berth --json sync y)
assert_eq "$(jq -c .conflicts <<<"$out")" '["q"]' "sync paths"

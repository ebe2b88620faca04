# A sync that conflicts is a result (exit 3) naming the paths, what it brings in (`onto`) and
# the workspace's HEAD before and now, not a bare error document; the sync is left unfinished for
# the agent, and `berth sync NAME --abort` undoes it exactly: the workspace's files, index, HEAD
# and branch as before the sync (its committed, staged, unstaged and untracked work alike), for a
# merge and for a rebase. Without an unfinished sync, --abort is not_found and changes nothing.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new x)
echo agent >"$ws/README.md"
git -C "$ws" commit -q -am "agent work"
echo staged >"$ws/src/main.c" && git -C "$ws" add src/main.c
echo unstaged >>"$ws/docs/guide.md"
echo new >"$ws/untracked.txt"
commit_file README.md "user" "the user's conflicting change"
onto=$(git rev-parse HEAD)

ws_state() {
  git -C "$1" rev-parse HEAD refs/heads/berth/x
  git -C "$1" symbolic-ref HEAD
  git -C "$1" ls-files -s --stage | sha256sum
  git -C "$1" status --porcelain=v2 --untracked-files=all
  tree_digest "$1"
}
before=$(ws_state "$ws")
project_before=$(fingerprint)
head=$(git -C "$ws" rev-parse HEAD)

for mode in merge rebase; do
  flags=()
  [[ $mode == rebase ]] && flags=(--rebase)
  out=$(expect_conflict berth --json sync x "${flags[@]}")
  assert_eq "$(jq -c .conflicts <<<"$out")" '["README.md"]' "$mode: conflicts"
  assert_eq "$(jq -r .onto <<<"$out")" "$onto" "$mode: onto"
  assert_eq "$(jq -r .old_head <<<"$out")" "$head" "$mode: old_head"
  [[ $(jq -r .new_head <<<"$out") =~ ^[0-9a-f]{40}$ ]]
  assert_contains "$(jq -r .hint <<<"$out")" "berth sync x --abort"
  assert_eq "$(berth --json status x | jq -r '.state + " " + .synced')" "conflicted $onto"
  # Left unfinished: the next command does not undo it as if it had died.
  berth list >/dev/null
  grep -q '^<<<<<<<' "$ws/README.md"

  out=$(berth --json sync x --abort)
  assert_eq "$(jq -r '.aborted' <<<"$out")" true "$mode: aborted"
  assert_eq "$(jq -r '.new_head' <<<"$out")" "$head" "$mode: back at"
  assert_eq "$(ws_state "$ws")" "$before" "$mode: the workspace after --abort"
  [[ ! -e $(git -C "$ws" rev-parse --git-dir)/MERGE_HEAD ]]
  [[ ! -e $(git -C "$ws" rev-parse --git-dir)/rebase-merge ]]
  assert_eq "$(berth --json status x | jq -r '.state + " " + (.synced | tostring)')" "ready null"
  assert_unchanged "$project_before"
done

# Nothing to abort: not_found, nothing changed.
expect_error not_found 4 berth --json sync x --abort >/dev/null
assert_eq "$(ws_state "$ws")" "$before" "the workspace after a refused --abort"

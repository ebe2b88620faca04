# A sync whose merge fails without a conflict (here the user's pre-merge-commit hook refuses) did
# not happen: sync fails (git_failed, its hint saying so) and keeps its marker, and the next berth
# command puts the workspace back where the sync started — HEAD as it was, the agent's work
# uncommitted again (its files, and what was staged staged again), no merge left half-way — and
# doctor is clean after.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new w)
(cd "$ws" && commit_file agent.txt agent 'agent commit')
echo "uncommitted work" >"$ws/work.txt"
echo "staged work" >"$ws/staged.txt"
git -C "$ws" add staged.txt
commit_file main.txt main 'user commit' # the branch moved on: the merge needs a merge commit
start=$(git -C "$ws" rev-parse HEAD)
before=$(git -C "$ws" status --porcelain) # staged.txt staged, work.txt untracked
cat >.git/hooks/pre-merge-commit <<HOOK
#!/bin/sh
[ -e "$T/refuse" ] && { echo "merge refused by hook" >&2; exit 1; }
exit 0
HOOK
chmod +x .git/hooks/pre-merge-commit
touch "$T/refuse"

out=$(expect_error git_failed 1 berth --json sync w)
assert_contains "$(jq -r .error.hint <<<"$out")" "puts the workspace back where the sync started"
ls "$(git rev-parse --git-common-dir)"/berth/ops/*.json >/dev/null # its marker is kept

berth status w >/dev/null 2>&1 # the next command undoes it
assert_eq "$(git -C "$ws" rev-parse HEAD)" "$start" "HEAD back"
assert_eq "$(git -C "$ws" status --porcelain)" "$before" "staged, unstaged and untracked as before"
assert_eq "$(git -C "$ws" diff --cached --name-only)" "staged.txt" "what was staged is staged again"
assert_eq "$(cat "$ws/work.txt")" "uncommitted work"
assert_eq "$(cat "$ws/staged.txt")" "staged work"
[[ ! -e $ws/main.txt ]]
not 1 git -C "$ws" rev-parse -q --verify MERGE_HEAD >/dev/null
[[ -z $(ls "$(git rev-parse --git-common-dir)"/berth/ops/ 2>/dev/null) ]]
berth doctor >/dev/null

# Once the hook lets it, the same sync works.
rm "$T/refuse"
berth sync w >/dev/null
assert_eq "$(cat "$ws/main.txt")" main
assert_eq "$(cat "$ws/work.txt")" "uncommitted work"

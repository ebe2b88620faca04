# The workspace conflicts with the user's branch: accept refuses (exit 3); `berth sync` merges the
# branch into the workspace and exits 3 with conflict markers left there, status and list say
# `conflicted`; the agent resolves and commits; accept then lands cleanly with both sides.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new x)
cd "$ws"
commit_file README.md "agent title" "agent retitles"
echo more >other.txt
cd "$T/app"
commit_file README.md "user title" "user retitles"
commit_file user.txt "user file" "user adds a file"
user_tip=$(git rev-parse HEAD)
expect_conflict berth --json accept x --strategy merge >/dev/null
checkout() {
  git rev-parse HEAD main
  git ls-files -s | sha256sum
  git status --porcelain=v2 --untracked-files=all
  tree_digest .
}
before=$(checkout)

out=$(expect_conflict berth --json sync x)
assert_eq "$(jq -c .conflicts <<<"$out")" '["README.md"]'
assert_contains "$(jq -r .hint <<<"$out")" "resolve"
grep -q '^<<<<<<<' "$ws/README.md"
grep -q '^>>>>>>>' "$ws/README.md"
assert_eq "$(cat "$ws/user.txt")" "user file" "the clean part of the sync"
assert_eq "$(berth --json status x | jq -r .state)" conflicted
assert_eq "$(berth --json status x | jq -r .changes.conflicted)" 1
assert_eq "$(berth --json list | jq -r '.[0].state')" conflicted
assert_contains "$(berth list)" conflicted
# The agent's uncommitted work was committed before the merge, so nothing of it is mixed in.
assert_eq "$(git show berth/x:other.txt)" more
# Syncing touched only the workspace.
assert_eq "$(checkout)" "$before" "the user's checkout"

# The agent resolves.
printf 'agent and user title\n' >"$ws/README.md"
git -C "$ws" add README.md
git -C "$ws" commit -q --no-edit
assert_eq "$(berth --json status x | jq -r .state)" ready
# The review now shows only the agent's own change, not the user's commits brought in.
assert_eq "$(berth diff x --name-only)" "$(printf 'README.md\nother.txt')"

berth accept x --strategy merge >/dev/null
assert_eq "$(git rev-parse HEAD^1)" "$user_tip"
assert_eq "$(cat README.md other.txt user.txt)" "$(printf 'agent and user title\nmore\nuser file')"
assert_eq "$(git status --porcelain --untracked-files=all)" ""

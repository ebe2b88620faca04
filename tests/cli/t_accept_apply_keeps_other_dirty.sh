# accept --strategy apply when the user has uncommitted work on OTHER files: those files stay
# byte-identical, with the same staged/unstaged state; only the change's files are written.
. "$(dirname "$0")/common.sh"
make_repo app 5
ws=$(berth new x)
echo agent >>"$ws/src/main.c"
echo agent >"$ws/agent.txt"

# The user: one file staged, then edited again (staged != worktree), one only modified, one
# untracked, one staged deletion.
echo staged >>README.md
git add README.md
echo unstaged-on-top >>README.md
echo mine >>files/2/f2.txt
echo scratch >scratch.txt
git rm -q files/3/f3.txt
staged_readme=$(git rev-parse :README.md)
sums=$(sha256sum README.md files/2/f2.txt scratch.txt)
status_before=$(git status --porcelain --untracked-files=all)

berth accept x --strategy apply >/dev/null

assert_eq "$(sha256sum README.md files/2/f2.txt scratch.txt)" "$sums" "user's files"
assert_eq "$(git rev-parse :README.md)" "$staged_readme" "user's staged README.md"
[[ ! -e files/3/f3.txt ]] && ! git ls-files --error-unmatch files/3/f3.txt 2>/dev/null
assert_eq "$(git status --porcelain --untracked-files=all | LC_ALL=C sort)" \
  "$(printf '%s\nA  agent.txt\nM  src/main.c' "$status_before" | LC_ALL=C sort)" "status"
assert_eq "$(git show :src/main.c)" "$(cat "$T/app/src/main.c")"
assert_contains "$(cat src/main.c)" agent

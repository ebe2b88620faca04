# `new --carry` brings the user's uncommitted work (staged, unstaged, untracked) into the new
# workspace, and leaves the user's checkout byte-identical: files, index, status.
. "$(dirname "$0")/common.sh"
make_repo app
echo "staged edit" >>README.md
git add README.md
echo "unstaged edit" >>src/main.c
echo "new file" >notes.txt
rm docs/guide.md
echo "build output" >out.o
echo "*.o" >>.git/info/exclude
# What must not change in the user's checkout: every file, the index file itself, the status.
checkout() { tree_digest .; sha256sum .git/index; git status --porcelain=v2 --untracked-files=all; }
before=$(checkout)

ws=$(berth new carried --carry)

assert_eq "$(checkout)" "$before" "the user's checkout"

# The workspace has the same work, with the same staged/unstaged split; ignored files stay home.
assert_eq "$(git -C "$ws" status --porcelain)" "$(git status --porcelain | grep -v 'out.o' || true)" "status"
assert_eq "$(git -C "$ws" diff --cached --name-only)" "README.md" "staged"
cmp README.md "$ws/README.md"
cmp src/main.c "$ws/src/main.c"
cmp notes.txt "$ws/notes.txt"
[[ ! -e $ws/docs/guide.md ]]
[[ ! -e $ws/out.o ]]
assert_eq "$(git -C "$ws" rev-parse HEAD)" "$(git rev-parse HEAD)" "base"

# --carry with another base is refused, and nothing is created.
git commit -q --allow-empty -m second
before=$(fingerprint)
expect_error usage 2 berth --json new other --carry --base HEAD~1 >/dev/null
assert_unchanged "$before"

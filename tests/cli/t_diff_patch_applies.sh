# The plain output of `berth diff` is a patch that `git apply` takes onto the base to reproduce
# the workspace's tree exactly: text, binary, renames, deletions, modes and symlinks included.
. "$(dirname "$0")/common.sh"
make_repo app 3
printf 'old\0binary\n' >img.bin
git add img.bin
git commit -q -m "an image"
base=$(git rev-parse HEAD)
ws=$(berth new x)
cd "$ws"
echo committed >>README.md
git commit -q -am "edit readme"
echo staged >>src/main.c
git add src/main.c
echo unstaged >>files/0/f0.txt
mkdir notes && echo todo >notes/todo.txt
rm files/1/f1.txt
mv src/lib/util.c src/lib/helpers.c
chmod -x bin/run.sh
chmod +x files/2/f2.txt
ln -sfn README.md GUIDE
ln -s src/main.c LINK
head -c 3000 /dev/urandom >img.bin
head -c 500 /dev/urandom >new.bin
printf 'no newline at end' >tail.txt
cd "$T/app"
ws_before=$(fingerprint "$ws")

berth diff x >"$T/change.patch"
# Reading the workspace changed nothing in it.
assert_unchanged "$ws_before" "$ws"

git worktree add -q --detach "$T/check" "$base"
git -C "$T/check" apply "$T/change.patch"
assert_eq "$(tree_digest "$T/check")" "$(tree_digest "$ws")" "files after git apply"
git -C "$T/check" add -A
assert_eq "$(git -C "$T/check" write-tree)" "$(berth --json diff x | jq -r .tree)" "tree after git apply"

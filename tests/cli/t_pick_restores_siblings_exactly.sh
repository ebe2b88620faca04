#!/usr/bin/env bash
# A pick's siblings go to the trash in one batch (one capture pass for all, their untracked files
# hashed in one call, their commits written together, their HEADs detached in one transaction):
# each comes back with `berth restore` exactly as it was — files byte for byte (modes, symlinks,
# an untracked CRLF file under a text=auto attribute, a file that became a folder, a name with a
# comma), the staged state, its commits, and what HEAD was (its own branch, or detached).
. "$(dirname "$0")/common.sh"
make_repo app
printf '*.crlf text=auto\n' >.gitattributes
echo "ours" >"we, them.txt"
git add -A
git commit -qm 'attributes, a name with a comma'

berth fork t -n 5 >/dev/null
ws() { berth path "$1"; }

# t-1: what the pick lands.
echo "picked" >"$(ws t-1)/answer.txt"
# t-2: a deep edit, a deletion, a mode change, untracked files in new folders, an untracked CRLF
# file that git's attributes would convert (the trash keeps it as it is).
w=$(ws t-2)
echo "int sub(int a, int b) { return a - b; }" >>"$w/src/lib/util.c"
rm "$w/docs/guide.md"
chmod -x "$w/bin/run.sh"
mkdir -p "$w/new/deep"
echo "untracked" >"$w/new/deep/file.txt"
printf 'line one\r\nline two\r\n' >"$w/notes.crlf"
# t-3: a commit, a staged change with more on top, an untracked symlink, a file that became a
# folder.
w=$(ws t-3)
echo "committed" >"$w/committed.txt"
git -C "$w" add committed.txt
git -C "$w" commit -qm "attempt 3"
echo "staged" >>"$w/README.md"
git -C "$w" add README.md
echo "unstaged on top" >>"$w/README.md"
ln -s README.md "$w/link-untracked"
rm "$w/src/main.c"
mkdir "$w/src/main.c"
echo "inner" >"$w/src/main.c/inner.txt"
# t-4: its own branch with a commit; the file with a comma edited; an empty untracked file.
w=$(ws t-4)
git -C "$w" checkout -q -b own
echo "own" >"$w/own.txt"
git -C "$w" add own.txt
git -C "$w" commit -qm "own branch"
echo "theirs" >>"$w/we, them.txt"
: >"$w/empty"
# t-5: HEAD detached, and an edit.
w=$(ws t-5)
git -C "$w" checkout -q --detach
echo "detached edit" >>"$w/docs/guide.md"

declare -A digest staged status head head_ref
state() {
  local w=$1
  digest[$2]=$(tree_digest "$w")
  staged[$2]=$(git -C "$w" diff --cached --binary | sha256sum)
  status[$2]=$(git -C "$w" status --porcelain=v1 -uall | sha256sum)
  head[$2]=$(git -C "$w" rev-parse HEAD)
  head_ref[$2]=$(git -C "$w" symbolic-ref -q HEAD || echo detached)
}
for i in 2 3 4 5; do state "$(ws "t-$i")" "$i"; done

out=$(berth --json pick t-1)
assert_eq "$(jq -r '[.discarded[].workspace.name] | join(",")' <<<"$out")" "t-2,t-3,t-4,t-5"
assert_eq "$(cat answer.txt)" picked

for i in 2 3 4 5; do
  berth restore "t-$i" >/dev/null
  w=$(ws "t-$i")
  was_digest=${digest[$i]} was_staged=${staged[$i]} was_status=${status[$i]}
  was_head=${head[$i]} was_ref=${head_ref[$i]}
  state "$w" "$i"
  assert_eq "${digest[$i]}" "$was_digest" "t-$i: files byte for byte"
  assert_eq "${staged[$i]}" "$was_staged" "t-$i: the staged state"
  assert_eq "${status[$i]}" "$was_status" "t-$i: the status"
  assert_eq "${head[$i]}" "$was_head" "t-$i: HEAD"
  assert_eq "${head_ref[$i]}" "$was_ref" "t-$i: what HEAD was"
done
assert_eq "$(tr -cd '\r' <"$(ws t-2)/notes.crlf" | wc -c)" 2 "the CRLF file as it was"
assert_eq "$(readlink "$(ws t-3)/link-untracked")" README.md

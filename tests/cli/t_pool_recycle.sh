# A discarded tree is reset into the pool when it has room: it ends exactly like a fresh slot
# (detached at the main HEAD, no untracked or ignored leftovers, settled index, the slot's lock
# reason). A tree berth cannot vouch for (a hard link to a file elsewhere) is deleted instead.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app 200
echo '*.o' >.gitignore && git add .gitignore && git commit -qm ignore
export BERTH_POOL_SIZE=2
berth pool fill >/dev/null
ws=$(berth new x 2>/dev/null)
admin=$(git -C "$ws" rev-parse --absolute-git-dir)
wait_for_fillers
fresh=$(berth --json pool status | jq -r '.slots[0].path')

# The agent's mess: committed work, edits, a deletion, untracked and ignored files, a mode change.
echo committed >"$ws/committed.txt"
git -C "$ws" add committed.txt && git -C "$ws" commit -qm work
echo edit >>"$ws/README.md"
rm "$ws/src/main.c"
chmod +x "$ws/docs/guide.md"
mkdir -p "$ws/build/deep" && echo obj >"$ws/build/deep/a.o" && echo obj >"$ws/b.o"
echo untracked >"$ws/notes.txt"
head=$(git rev-parse HEAD)

# Room for one more slot: the discarded tree becomes it.
BERTH_POOL_SIZE=3 berth discard x >/dev/null
wait_for_fillers
json=$(berth --json pool status)
assert_eq "$(jq -r '.ready, .trash' <<<"$json" | paste -sd,)" "3,0"
recycled=
for slot in $(jq -r '.slots[].path' <<<"$json"); do
  [[ $(git -C "$slot" rev-parse --absolute-git-dir) == "$admin" ]] && recycled=$slot
done
[[ -n $recycled ]] || { echo "the discarded tree was not recycled" >&2; false; }
assert_eq "$(git -C "$recycled" rev-parse HEAD)" "$head"
not 1 git -C "$recycled" symbolic-ref -q HEAD >/dev/null
assert_eq "$(git -C "$recycled" status --porcelain --untracked-files=all --ignored)" ""
assert_eq "$(tree_digest "$recycled")" "$(tree_digest "$fresh")" "recycled vs fresh slot"
assert_eq "$(lock_reason "$recycled")" "$SLOT_REASON"
assert_index_settled "$recycled"
assert_eq "$(cat "$admin/ORIG_HEAD")" "$head" "ORIG_HEAD (as in a fresh slot)"
git -C "$recycled" reflog | { ! grep -q work; }

# Taking it makes a workspace like any other.
ws=$(berth new y 2>/dev/null)
assert_eq "$(git -C "$ws" status --porcelain --untracked-files=all --ignored)" ""
assert_eq "$(git -C "$ws" symbolic-ref HEAD)" refs/heads/berth/y
wait_for_fillers

# A tracked file hard-linked to a file outside: git writes a new file in its place when it resets
# the tree, so the next workspace never shares it, and the outside file is untouched.
ws=$(berth new z 2>/dev/null)
admin=$(git -C "$ws" rev-parse --absolute-git-dir)
wait_for_fillers
cp "$ws/README.md" "$T/outside.md"
ln -f "$T/outside.md" "$ws/README.md"
BERTH_POOL_SIZE=$(($(berth --json pool status | jq .ready) + 1)) berth discard z >/dev/null
wait_for_fillers
recycled=
for slot in $(berth --json pool status | jq -r '.slots[].path'); do
  [[ $(git -C "$slot" rev-parse --absolute-git-dir) == "$admin" ]] && recycled=$slot
done
if [[ -n $recycled ]]; then
  assert_eq "$(stat -c %h "$recycled/README.md")" 1 "links of the recycled README.md"
fi
assert_eq "$(cat "$T/outside.md")" "# app"
assert_eq "$(stat -c %h "$T/outside.md")" 1

# What a reset does not undo sends the tree to deletion instead: a tracked folder's permissions
# (git never sets them), or sparse-checkout patterns in the worktree's admin dir.
for mess in 'chmod 700 "$ws/src"' 'git -C "$ws" sparse-checkout set --no-cone /src/ >/dev/null 2>&1'; do
  ws=$(berth new mess 2>/dev/null)
  admin=$(git -C "$ws" rev-parse --absolute-git-dir)
  wait_for_fillers
  eval "$mess"
  BERTH_POOL_SIZE=$(($(berth --json pool status | jq .ready) + 1)) berth discard mess >/dev/null 2>&1
  wait_for_fillers
  for slot in $(berth --json pool status | jq -r '.slots[].path'); do
    [[ $(git -C "$slot" rev-parse --absolute-git-dir) != "$admin" ]]
    assert_eq "$(git -C "$slot" status --porcelain --untracked-files=all --ignored)" ""
  done
  [[ ! -e $admin ]]
  assert_eq "$(berth --json pool status | jq -r .trash)" 0
done
pool_quiesce

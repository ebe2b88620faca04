# Workspaces are watched from their birth: a pooled workspace that no berth command has looked at
# (an agent edited it, nobody ran `list`) is snapshotted by `discard` through the shadow index the
# pool slot handed over, asking the watcher only what changed since the slot was settled — and
# that snapshot misses nothing: `restore` brings back every byte. (An agent's own `git add`
# replaces the index the shadow mirrors: then the first snapshot is a full look, as before.)
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app 30
printf 'build/\n' >.gitignore && git add .gitignore && git commit -q -m ignore

# Slots made in the foreground (each gets its one full look there); the `new`s below take them
# with pool.size = 0: the background pass each take starts fills nothing, and looks at the
# workspace in its new place (git's untracked cache is of the slot's path) before the agent's
# work begins.
BERTH_POOL_SIZE=2 berth pool fill >/dev/null
assert_eq "$(berth --json pool status | jq '[.slots[] | select(.state == "ready")] | length')" 2
export BERTH_POOL_SIZE=0
ws=$(berth new born)
other=$(berth new born2)
wait_for_fillers

# An agent's work, straight after `new`, with no berth command in between.
cd "$ws"
echo more >>README.md                               # modified
printf 'X' | dd of=src/main.c bs=1 seek=0 conv=notrunc status=none # same-size edit
rm docs/guide.md                                    # deleted
mkdir -p n1/n2 && echo deep >n1/n2/deep.txt         # untracked, in new folders
echo new >files/3/new.txt                           # untracked, in an old folder
chmod -x bin/run.sh                                 # exec bit off
ln -sfn src/main.c GUIDE                            # a symlink changed
mv files/5 files/5b                                 # a folder renamed
mkdir -p build && echo obj >build/out.o             # ignored: not saved
digest_before=$(mv build "$T/" && tree_digest "$ws" && mv "$T/build" "$ws/")
echo other >>"$other/README.md"
cd "$T/app"

GIT_TRACE=$T/born.trace GIT_TRACE_FSMONITOR=$T/born.fsmonitor \
  berth discard born >/dev/null 2>&1
[[ ! -e $ws ]]
# The quick way was taken: git was told which paths changed (not "/"), and the full look
# discard takes before it deletes the tree (pool.size = 0) found nothing to add.
assert_contains "$(cat "$T/born.fsmonitor")" "fsmonitor_refresh_callback 'README.md'"
assert_contains "$(cat "$T/born.fsmonitor")" "fsmonitor_refresh_callback 'n1/n2/deep.txt'"
assert_not_contains "$(cat "$T/born.trace")" "completed by a full look"

restored=$(berth restore born)
assert_eq "$(tree_digest "$restored")" "$digest_before" "every file comes back"

# The second slot's workspace too (each slot hands over its own shadow, and the look after its
# take kept a verdict): a file changed in a folder of the tree, so its snapshot is made from the
# watcher's paths alone, without a status of its own (the one status in the trace is the full
# look that checks the snapshot, which has no --branch).
GIT_TRACE=$T/born2.trace berth discard born2 >/dev/null 2>&1
assert_not_contains "$(cat "$T/born2.trace")" "status --porcelain=v2 -z --branch"
assert_contains "$(cat "$T/born2.trace")" "update-index --add --remove --replace"
back=$(berth restore born2)
assert_eq "$(tail -1 "$back/README.md")" other
pool_quiesce

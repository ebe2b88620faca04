# A `berth run` killed (kill -9) after its command planted a FIFO as the workspace's index: the
# next command takes the dead run over and rebuilds the index (`read-tree`), which runs the
# user's post-index-change hook — without berth's lock held, so that the hook may itself call
# berth (here: `berth new`) instead of waiting for a lock its own caller holds. Also `doctor --repair`
# rebuilding the index of a workspace whose index is a planted FIFO.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new x)
echo work >"$ws/w.txt"
admin=$(git -C "$ws" rev-parse --absolute-git-dir)
not 137 berth run x -- sh -c 'rm -f "$1/index"; mkfifo "$1/index"; kill -9 $PPID' sh "$admin"
[[ -p $admin/index ]]

mkdir -p .git/hooks
cat >.git/hooks/post-index-change <<SH
#!/bin/sh
[ -e "$T/hook-ran" ] && exit 0
touch "$T/hook-ran"
timeout 10 "$BERTH_BIN" new from-hook >/dev/null 2>"$T/hook.err" || touch "$T/hook-failed"
SH
chmod +x .git/hooks/post-index-change

out=$(timeout 30 "$BERTH_BIN" --json list)
[[ -e $T/hook-ran ]] # the recovery rebuilt the index
[[ ! -e $T/hook-failed ]] || { echo "the hook's berth new failed (berth's lock held?)" >&2; cat "$T/hook.err" >&2; exit 1; }
assert_eq "$(jq -r '.[] | select(.name == "x") | .state' <<<"$out")" ready
assert_eq "$(berth --json list | jq -r '[.[].name] | join(" ")')" "from-hook x"
[[ -f $admin/index && ! -p $admin/index ]]
assert_eq "$(cat "$ws/w.txt")" work

# The same for `doctor --repair` rebuilding the index of a workspace whose index is a FIFO
# planted by hand: the hook runs while berth's lock is free.
mv .git/hooks/post-index-change "$T/hook.off" # not for the discard's own index writes
berth discard from-hook >/dev/null
rm -f "$T/hook-ran" "$T/hook-failed" "$T/hook.err"
rm -f "$admin/index" && mkfifo "$admin/index"
mv "$T/hook.off" .git/hooks/post-index-change
timeout 30 "$BERTH_BIN" doctor --repair >/dev/null
[[ -e $T/hook-ran ]] # the repair rebuilt the index
[[ ! -e $T/hook-failed ]] || { echo "the hook's berth new failed under doctor --repair (berth's lock held?)" >&2; cat "$T/hook.err" >&2; exit 1; }
[[ -f $admin/index && ! -p $admin/index ]]
assert_eq "$(berth --json list | jq -r '[.[].name] | join(" ")')" "from-hook x"

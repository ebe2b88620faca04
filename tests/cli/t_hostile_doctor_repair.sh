# Non-files planted in a workspace's admin dir (a directory for HEAD, a symlink to /dev/zero for
# ORIG_HEAD, a FIFO for logs/HEAD): doctor reports each (without hanging), and --repair moves
# them aside (nothing deleted) and gives the workspace back its HEAD; then all is well again.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/hostile_helpers.sh"
make_repo app
ws=$(berth new x)
echo work >"$ws/w.txt"
admin=$(git -C "$ws" rev-parse --absolute-git-dir)
rm "$admin/HEAD"
mkdir "$admin/HEAD"
rm -f "$admin/ORIG_HEAD"
ln -s /dev/zero "$admin/ORIG_HEAD"
rm -f "$admin/logs/HEAD"
mkfifo "$admin/logs/HEAD"

not 1 bounded doctor >/dev/null
said=$(cat "$TMPDIR/not.out" "$TMPDIR/not.err")
assert_contains "$said" "workspace 'x'"
assert_contains "$said" "--repair"

bounded doctor --repair >"$T/repair.out" 2>&1 || true
assert_contains "$(cat "$T/repair.out")" "moved aside"
aside=$(find "$admin" -maxdepth 1 -name 'berth-aside*')
[[ -d $aside/HEAD && -L $aside/ORIG_HEAD && -p $aside/logs_HEAD ]]

bounded doctor >/dev/null
assert_eq "$(bounded --json status x | jq -r '.state + " " + .head_branch')" "ready berth/x"
assert_eq "$(cat "$ws/w.txt")" work "work tree untouched"
timeout 20 git gc -q

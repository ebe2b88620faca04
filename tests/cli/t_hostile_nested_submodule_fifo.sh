# Nested submodules (third_party/x holds deep): a FIFO planted in the nested module's git dir
# (`modules/third_party/x/modules/deep/`), in the main checkout's .git or in a workspace's admin
# dir, never hangs berth. In the checkout's: accept refuses with hostile_file (exit 5, nothing
# changed; it used to wait on it forever), doctor reports it, --repair moves it aside and
# rebuilds the module's index, and the accept then lands. In a workspace's: status says hostile,
# doctor reports it, --repair moves it aside.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/hostile_helpers.sh"
make_repo deep
commit_file deep.c 'int deep(void);' 'deep'
make_repo lib
git -c protocol.file.allow=always submodule add -q "$T/deep" deep
git commit -qm 'add deep'
make_repo app
git -c protocol.file.allow=always submodule add -q "$T/lib" third_party/x
git -c protocol.file.allow=always submodule update -q --init --recursive
git commit -qm 'add lib'
nested=$T/app/.git/modules/third_party/x/modules/deep
[[ -f $nested/index ]]

ws=$(berth new w)
echo work >"$ws/w.txt"

# The checkout's nested module: accept refuses, changing nothing.
before=$(fingerprint)
mv "$nested/index" "$T/index.saved"
mkfifo "$nested/index"
out=$(expect_error hostile_file 5 bounded --json accept w)
assert_eq "$(jq -r '.error.paths[0]' <<<"$out")" "$nested/index"
[[ -p $nested/index ]]
assert_eq "$(bounded --json status w | jq -r .state)" ready "the workspace is untouched"
rm "$nested/index"
mv "$T/index.saved" "$nested/index"
assert_unchanged "$before"

# doctor sees it; --repair moves it aside; the accept then lands.
rm "$nested/index"
mkfifo "$nested/index"
not 1 bounded doctor >/dev/null
assert_contains "$(cat "$TMPDIR/not.out" "$TMPDIR/not.err")" "$nested/index is a FIFO"
bounded doctor --repair >"$T/repair.out" 2>&1 || true
assert_contains "$(cat "$T/repair.out")" "moved aside"
[[ -f $nested/index ]]
assert_eq "$(timeout 20 git -C third_party/x/deep status --porcelain)" "" "nested index rebuilt"
bounded accept w >/dev/null 2>&1
assert_eq "$(cat w.txt)" work

# A workspace's nested module (its admin dir's modules/third_party/x/modules/deep).
ws=$(berth new v)
(cd "$ws" && git -c protocol.file.allow=always submodule update -q --init --recursive)
admin=$(git -C "$ws" rev-parse --absolute-git-dir)
module=$admin/modules/third_party/x/modules/deep
[[ -f $module/HEAD ]]
rm "$module/HEAD"
mkfifo "$module/HEAD"
assert_eq "$(bounded --json status v | jq -r .state)" hostile "status"
not 1 bounded doctor >/dev/null
assert_contains "$(cat "$TMPDIR/not.out" "$TMPDIR/not.err")" "$module/HEAD is a FIFO"
bounded doctor --repair >/dev/null 2>&1 || true
[[ -f $module/HEAD ]]
assert_eq "$(timeout 20 git -C "$ws/third_party/x/deep" rev-parse HEAD)" \
  "$(git -C third_party/x/deep rev-parse HEAD)" "nested module HEAD back"
assert_eq "$(bounded --json status v | jq -r .state)" ready "status after repair"
bounded doctor >/dev/null

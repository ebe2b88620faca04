# A command in a workspace replaced a file of a SUBMODULE's git dir (<admin>/modules/<name>/, where
# git keeps a worktree's submodules) with a FIFO: git would wait on it in every status, diff and
# discard of the workspace. berth treats it as it treats the admin dir's own files: list and
# status say hostile, diff and commit refuse (nothing changed), doctor reports it and --repair
# moves it aside and rebuilds what git needs (HEAD, on the branch it was on, and the index), the
# end of a run repairs it with a warning, and discard then restore give the work back.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/hostile_helpers.sh"
make_repo_with_submodule
ws=$(berth new w)
echo work >"$ws/w.txt"
(cd "$ws/third_party/x" && git checkout -q -b agent && echo sub >sub.txt && git add sub.txt &&
  git commit -qm 'sub work')
sub_tip=$(git -C "$ws/third_party/x" rev-parse HEAD)
module=$(git -C "$ws/third_party/x" rev-parse --absolute-git-dir)
admin=$(git -C "$ws" rev-parse --absolute-git-dir)
assert_eq "$module" "$admin/modules/third_party/x" "the submodule's git dir"
rm "$module/index"
mkfifo "$module/index"

# list and status answer (bounded), naming the FIFO.
out=$(bounded --json list)
assert_eq "$(jq -r '.[] | select(.name == "w") | .state' <<<"$out")" hostile "w's state"
assert_contains "$(jq -r '.[] | select(.name == "w") | .problem' <<<"$out")" "$module/index is a FIFO"
assert_eq "$(bounded --json status w | jq -r .state)" hostile "status"

# diff and commit refuse, changing nothing.
before=$(fingerprint)
expect_error hostile_file 5 bounded --json diff w >/dev/null
out=$(expect_error hostile_file 5 bounded --json commit w -m work)
assert_eq "$(jq -r '.error.paths[0]' <<<"$out")" "$module/index"
[[ -p $module/index ]]
assert_eq "$(fingerprint)" "$before" "fingerprint after refusals"

# doctor reports it; --repair moves it aside and git can read the submodule again.
not 1 bounded doctor >/dev/null
assert_contains "$(cat "$TMPDIR/not.out" "$TMPDIR/not.err")" "$module/index is a FIFO"
bounded doctor --repair >"$T/repair.out" 2>&1 || true
assert_contains "$(cat "$T/repair.out")" "moved aside"
[[ -f $module/index ]]
bounded doctor >/dev/null
assert_eq "$(timeout 20 git -C "$ws/third_party/x" status --porcelain)" "" "submodule index rebuilt"
assert_eq "$(bounded --json status w | jq -r .state)" ready "status after repair"

# A run that plants HEAD of the submodule's git dir is repaired at its end, with a warning.
plant='rm -f "$1/HEAD"; mkfifo "$1/HEAD"'
bounded run w -- sh -c "$plant" sh "$module" 2>"$T/run.err"
assert_contains "$(cat "$T/run.err")" "moved aside"
[[ -f $module/HEAD ]]
assert_eq "$(timeout 20 git -C "$ws/third_party/x" rev-parse HEAD)" "$sub_tip" "submodule HEAD back"
assert_eq "$(timeout 20 git -C "$ws/third_party/x" symbolic-ref HEAD)" refs/heads/agent "on its branch"

# Planted again: discard works (bounded by a short git timeout), restore brings the work back.
rm "$module/HEAD"
mkfifo "$module/HEAD"
BERTH_GIT_TIMEOUT=5 bounded discard w >/dev/null 2>&1
[[ ! -e $ws ]]
restored=$(bounded restore w)
assert_eq "$(cat "$restored/w.txt")" work "restored work"
assert_eq "$(timeout 20 git -C "$restored/third_party/x" rev-parse HEAD)" "$sub_tip" "restored submodule commit"
assert_eq "$(cat "$restored/third_party/x/sub.txt")" sub "restored submodule file"

# The main checkout's own submodule git dir (.git/modules/<name>): doctor reports a FIFO planted
# there and --repair moves it aside and rebuilds the index.
main_module=$(git -C third_party/x rev-parse --absolute-git-dir)
assert_eq "$main_module" "$T/app/.git/modules/third_party/x" "the main checkout's submodule git dir"
rm "$main_module/index"
mkfifo "$main_module/index"
not 1 bounded doctor >/dev/null
assert_contains "$(cat "$TMPDIR/not.out" "$TMPDIR/not.err")" "$main_module/index is a FIFO"
bounded doctor --repair >"$T/repair.out" 2>&1 || true
assert_contains "$(cat "$T/repair.out")" "moved aside"
[[ -f $main_module/index ]]
assert_eq "$(timeout 20 git -C third_party/x status --porcelain)" "" "main submodule index rebuilt"
bounded doctor >/dev/null

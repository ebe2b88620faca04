# A command run in a workspace leaves FIFOs where git reads HEAD, its reflog and the index.
# At the end of the run berth moves them aside and says so: the run returns, later commands and
# the user's own `git gc` do not hang, and the workspace's files and branch are as the command
# left them.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/hostile_helpers.sh"
make_repo app
ws=$(berth new x)
admin=$(git -C "$ws" rev-parse --absolute-git-dir)
(cd "$ws" && commit_file c.txt committed)
tip=$(git rev-parse refs/heads/berth/x)

plant='echo work >w.txt; for f in HEAD logs/HEAD index; do rm -f "$1/$f"; mkfifo "$1/$f"; done'
bounded run x -- sh -c "$plant" sh "$admin" 2>"$T/run.err"
assert_contains "$(cat "$T/run.err")" "moved aside"
[[ -f $admin/HEAD && -f $admin/index && ! -p $admin/logs/HEAD ]]

timeout 20 git gc -q
out=$(bounded --json status x)
assert_eq "$(jq -r .state <<<"$out")" ready "state"
assert_eq "$(jq -r .head <<<"$out")" "$tip" "head"
assert_eq "$(jq -r .head_branch <<<"$out")" berth/x "branch"
assert_eq "$(cat "$ws/w.txt")" work "the command's file"
assert_contains "$(bounded diff x --name-only)" w.txt

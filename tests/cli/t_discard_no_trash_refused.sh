# `discard --no-trash` on a workspace with unsaved work is refused (exit 5, nothing changed) unless
# --force is given; on a clean workspace it needs no --force.
. "$(dirname "$0")/common.sh"
make_repo app
dirty=$(berth new dirty)
echo wip >"$dirty/wip.txt"
ahead=$(berth new ahead)
(cd "$ahead" && commit_file done.txt "committed")
berth new clean >/dev/null
before=$(fingerprint)
dirty_files=$(tree_digest "$dirty")

out=$(expect_error unsaved_work 5 berth --json discard dirty --no-trash)
assert_contains "$(jq -r .error.hint <<<"$out")" "--force"
expect_error unsaved_work 5 berth --json discard ahead --no-trash >/dev/null
not 5 berth discard dirty --no-trash >/dev/null
assert_unchanged "$before"
assert_eq "$(tree_digest "$dirty")" "$dirty_files" "the workspace's files"

berth discard dirty --no-trash --force >/dev/null
[[ ! -e $dirty ]]
berth discard clean --no-trash >/dev/null
assert_eq "$(git for-each-ref refs/berth/trash/)" ""
assert_eq "$(berth --json list | jq -r '.[].name')" ahead
not 1 git rev-parse --verify -q refs/heads/berth/dirty >/dev/null

# A name that is in use, or whose folder another workspace has, is refused with name_taken.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new task)
echo "agent work" >"$ws/work.txt"
before=$(fingerprint)
ws_before=$(tree_digest "$ws")

out=$(expect_error name_taken 1 berth --json new task)
assert_contains "$(jq -r .error.hint <<<"$out")" "berth discard task"
assert_unchanged "$before"
assert_eq "$(tree_digest "$ws")" "$ws_before" "the existing workspace"

# feat/x and feat-x would share the folder feat-x.
berth new feat/x >/dev/null
before=$(fingerprint)
expect_error name_taken 1 berth --json new feat-x >/dev/null
assert_unchanged "$before"

# A directory someone left at the workspace's place is never reused.
root=$(dirname "$ws")
mkdir "$root/squatter" && echo mine >"$root/squatter/keep"
before=$(fingerprint)
expect_error name_taken 1 berth --json new squatter >/dev/null
assert_unchanged "$before"
assert_eq "$(cat "$root/squatter/keep")" mine

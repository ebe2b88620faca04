# A workspace that lies outside berth's (current) workspace root is never deleted: unsafe_path
# (exit 5), nothing changed; with the root it was made under, discard works.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(BERTH_WORKSPACE_ROOT=$T/elsewhere berth new x)
assert_eq "$ws" "$T/elsewhere/x"
echo wip >"$ws/wip.txt"
before=$(fingerprint)
files=$(tree_digest "$ws")

expect_error unsafe_path 5 berth --json discard x >/dev/null
expect_error unsafe_path 5 berth --json discard x --force >/dev/null
assert_unchanged "$before"
assert_eq "$(tree_digest "$ws")" "$files"

BERTH_WORKSPACE_ROOT=$T/elsewhere berth discard x >/dev/null
[[ ! -e $ws ]]
git show "$(git for-each-ref --format='%(refname)' refs/berth/trash/x/):wip.txt" >/dev/null

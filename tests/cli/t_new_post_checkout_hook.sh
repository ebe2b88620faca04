# The user's post-checkout hook runs in the new workspace once its files are there, like after
# `git worktree add`; its output does not pollute stdout, and its failure is only a warning.
. "$(dirname "$0")/common.sh"
make_repo app
cat >.git/hooks/post-checkout <<HOOK
#!/bin/sh
echo "hook stdout noise"
echo "hook stderr noise" >&2
printf '%s|%s|%s|%s|%s\n' "\$PWD" "\$1" "\$2" "\$3" "\$(cat README.md)" >>"$T/hook.log"
HOOK
chmod +x .git/hooks/post-checkout
head=$(git rev-parse HEAD)

ws=$(berth new x 2>"$TMPDIR/err")
assert_eq "$ws" "$(berth path x)" "stdout of berth new"
assert_contains "$(cat "$TMPDIR/err")" "hook stdout noise"
assert_eq "$(cat "$T/hook.log")" "$ws|0000000000000000000000000000000000000000|$head|1|# app"
json=$(berth --json new y 2>/dev/null)
jq -e . <<<"$json" >/dev/null

# A failing hook does not undo the workspace; berth says so.
printf '#!/bin/sh\nexit 7\n' >.git/hooks/post-checkout
ws=$(berth new z 2>"$TMPDIR/err")
[[ -d $ws ]]
assert_contains "$(cat "$TMPDIR/err")" "post-checkout hook failed"
assert_eq "$(berth --json status z | jq -r .state)" ready

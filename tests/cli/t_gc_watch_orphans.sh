# `berth gc` has the watcher stop following trees that are no longer a workspace or a pool slot
# (kind `watch`): here a workspace moved away by hand (its record then an orphan too). The live
# workspaces stay followed; the dry run lists exactly what the real run does.
. "$(dirname "$0")/common.sh"
make_repo app
export BERTH_POOL_SIZE=0
a=$(berth new a)
b=$(berth new b)
echo "work" >"$b/wip.txt"
berth list >/dev/null # the watcher follows both trees now
roots() { berth --json watch status | jq '.roots'; }
assert_eq "$(roots)" 2 "the watcher follows both workspaces"
mv "$a" "$T/moved-away"

watch_items() { jq -c '[.removed[] | select(.kind == "watch") | {path, reason}]' <<<"$1"; }
before=$(fingerprint)
dry=$(berth --json gc --dry-run)
assert_unchanged "$before"
assert_eq "$(roots)" 2 "the dry run changes nothing"
assert_eq "$(watch_items "$dry")" \
  '[{"path":null,"reason":"the watcher follows a tree moved away that is no workspace or pool slot"}]'
grep -q "^would remove orphan   watch     (moved away): the watcher follows" <<<"$(berth gc --dry-run)"
real=$(berth --json gc)
assert_eq "$(watch_items "$real")" "$(watch_items "$dry")" "the real run does what the dry run said"
assert_eq "$(roots)" 1 "the moved tree is no longer followed"
# Nothing more to do; b is still followed and its work untouched.
assert_eq "$(watch_items "$(berth --json gc --dry-run)")" "[]"
assert_eq "$(cat "$b/wip.txt")" "work"

# berth's project lock is never held while the user's reference-transaction hook runs for one of
# berth's own ref updates: with the hook waiting at `berth new a`'s branch, `discard`'s snapshot
# ref and branch deletion, a pool slot's branch and `restore`'s branch, other berth commands (list,
# status, new of another name) finish meanwhile — and while it runs for doctor --repair's re-made
# branch; the hooked command then finishes and the hook did run for berth's ref. A hook that refuses berth's ref gets a clear error and leaves nothing behind.
# (Before: `git worktree add -b`, the snapshot's update-ref and the branch deletion ran under the
# lock, and a slow hook blocked every `berth new`.)
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/hostile_helpers.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app 5
mkdir -p .git/hooks
# The hook waits (bounded) at "prepared" for the first transaction whose refs match the pattern in
# $T/pattern, refuses one matching $T/refuse, and logs every ref it sees.
cat >.git/hooks/reference-transaction <<SH
#!/bin/sh
refs=\$(cat)
printf '%s\n' "\$refs" | sed "s/^/\$1 /" >>"$T/hook.log"
[ "\$1" = prepared ] || exit 0
if [ -s "$T/refuse" ] && printf '%s\n' "\$refs" | grep -Eq "\$(cat "$T/refuse")"; then exit 1; fi
[ -s "$T/pattern" ] && printf '%s\n' "\$refs" | grep -Eq "\$(cat "$T/pattern")" || exit 0
mkdir "$T/hook-waiting" 2>/dev/null || exit 0 # only the first match waits
touch "$T/hook-started"
i=0
while [ ! -e "$T/release" ] && [ \$i -lt 600 ]; do sleep 0.05; i=\$((i + 1)); done
SH
chmod +x .git/hooks/reference-transaction
Z='0{40}'
others=0
# while_hook_waits PATTERN CMD...: CMD runs until the hook waits for a ref matching PATTERN; other
# berth commands must finish meanwhile; then CMD must finish (exit 0) and the hook saw the ref.
while_hook_waits() {
  local pattern=$1
  shift
  rm -rf "$T/hook-started" "$T/release" "$T/hook-waiting" "$T/hook.log"
  printf '%s\n' "$pattern" >"$T/pattern"
  "$@" >"$T/cmd.out" 2>&1 &
  local pid=$!
  wait_for_file "$T/hook-started"
  bounded list >/dev/null
  bounded new "other$((++others))" >/dev/null
  bounded status "other$others" >/dev/null
  touch "$T/release"
  wait "$pid" || { cat "$T/cmd.out" >&2; false; }
  sed -n 's/^committed //p' "$T/hook.log" | grep -Eq "$pattern" || { cat "$T/hook.log" >&2; false; }
  : >"$T/pattern"
}

# new: the branch is created while the hook waits; list shows the workspace being created.
rm -rf "$T/hook-started" "$T/release" "$T/hook-waiting"
echo 'refs/heads/berth/a$' >"$T/pattern"
berth new a >/dev/null 2>&1 &
pid=$!
wait_for_file "$T/hook-started"
bounded new other0 >/dev/null
assert_eq "$(bounded --json list | jq -r '.[] | select(.name == "a") | .state')" creating
expect_error busy 5 bounded --json path a >/dev/null
touch "$T/release"
wait "$pid"
: >"$T/pattern"
ws=$(berth path a)
echo work >"$ws/work.txt"
while_hook_waits 'refs/heads/berth/a2$' berth new a2
# discard: the snapshot ref, then the branch's deletion.
while_hook_waits "^$Z [0-9a-f]+ refs/berth/trash/a/" berth discard a
assert_eq "$(berth --json restore --list | jq -r '[.[] | select(.name == "a")] | length')" 1
while_hook_waits "^[0-9a-f]+ $Z refs/heads/berth/a2$" berth discard a2
not 1 git rev-parse -q --verify refs/heads/berth/a2 >/dev/null
# restore: the workspace's branch again.
while_hook_waits 'refs/heads/berth/a$' berth restore a
assert_eq "$(cat "$(berth path a)/work.txt")" work
# new from a pool slot: the slot's branch.
BERTH_POOL_SIZE=1 berth pool fill >/dev/null
while_hook_waits 'refs/heads/berth/p$' env BERTH_POOL_SIZE=1 "$BERTH_BIN" new p
assert_eq "$(berth --json status p | jq -r .state)" ready
wait_for_fillers
BERTH_POOL_SIZE=1 berth pool drain >/dev/null
assert_eq "$(berth --json doctor | jq -r '.problems | length')" 0
# doctor --repair: a branch deleted behind berth's back is made again while the hook waits.
git update-ref -d refs/heads/berth/p
while_hook_waits "^$Z [0-9a-f]+ refs/heads/berth/p$" berth doctor --repair
assert_eq "$(git rev-parse -q --verify refs/heads/berth/p)" "$(git -C "$(berth path p)" rev-parse HEAD)"
assert_eq "$(berth --json doctor | jq -r '.problems | length')" 0

# A hook refusing berth's branch: a clear error, nothing left, the name free at once.
fp=$(fingerprint)
echo 'refs/heads/berth/r$' >"$T/refuse"
out=$(expect_error hook_refused 1 berth --json new r)
assert_contains "$(jq -r .error.message <<<"$out")" "reference-transaction hook"
assert_contains "$(jq -r .error.message <<<"$out")" berth/r
assert_unchanged "$fp"
assert_eq "$(berth --json doctor | jq -r '.problems | length')" 0
# From a pool slot too: the slot goes back to the pool unharmed or is dropped, nothing else.
BERTH_POOL_SIZE=1 berth pool fill >/dev/null
expect_error hook_refused 1 env BERTH_POOL_SIZE=1 "$BERTH_BIN" --json new r >/dev/null
wait_for_fillers
BERTH_POOL_SIZE=1 berth pool drain >/dev/null
assert_unchanged "$fp"
: >"$T/refuse"
berth new r >/dev/null
# A refused snapshot ref: the discard stops, the workspace stays as it was.
echo 'refs/berth/trash/r/' >"$T/refuse"
echo more >"$(berth path r)/more.txt"
expect_error hook_refused 1 berth --json discard r >/dev/null
assert_eq "$(berth --json status r | jq -r .state)" ready
assert_eq "$(cat "$(berth path r)/more.txt")" more
assert_eq "$(berth --json doctor | jq -r '.problems | length')" 0
: >"$T/refuse"
berth discard r >/dev/null
berth new r >/dev/null
# A refused deletion of the branch: the discard still goes (its work in the trash), the branch is
# kept, and the warning names the hook, not a move that did not happen.
echo 'refs/heads/berth/r$' >"$T/refuse"
tip=$(git rev-parse berth/r)
out=$(berth discard r 2>&1)
assert_contains "$out" "branch berth/r kept: your reference-transaction hook refused its deletion"
assert_eq "$(git rev-parse berth/r)" "$tip" "the branch kept"
assert_not_contains "$(git worktree list --porcelain)" "refs/heads/berth/r"
[[ $(git for-each-ref --format='%(refname)' 'refs/berth/trash/r/*' | wc -l) -ge 2 ]]
: >"$T/refuse"
git branch -D -q berth/r

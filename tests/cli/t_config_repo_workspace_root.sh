# A repository's .berth.toml may keep workspaces inside the project (a relative workspace_root,
# then excluded via .git/info/exclude so `git status` stays clean), but an absolute or escaping
# workspace_root from a repository is ignored with a warning.
. "$(dirname "$0")/common.sh"
make_repo app
for bad in "$T/evil" "~/evil" "../evil" "a/../../evil"; do
  printf 'workspace_root = "%s"\n' "$bad" >.berth.toml
  git add .berth.toml && git commit -q -m "root $bad"
  json=$(berth --json config 2>"$TMPDIR/err")
  assert_contains "$(cat "$TMPDIR/err")" "ignored"
  assert_eq "$(jq -r .workspace_root.source <<<"$json")" built-in
done
ws=$(berth new x 2>/dev/null)
[[ $ws == "$HOME"/berth/app-*/x ]]
[[ ! -e $T/evil && ! -e $HOME/evil ]]
berth discard x >/dev/null 2>&1

printf 'workspace_root = ".worktrees"\n' >.berth.toml
git add .berth.toml && git commit -q -m "root inside"
ws=$(berth new x)
assert_eq "$ws" "$T/app/.worktrees/x"
assert_eq "$(git status --porcelain --untracked-files=all)" ""
assert_eq "$(grep -c '^/.worktrees/$' .git/info/exclude)" 1
berth new y >/dev/null
assert_eq "$(grep -c '^/.worktrees/$' .git/info/exclude)" 1
assert_eq "$(git -C "$ws" status --porcelain --untracked-files=all)" ""
assert_eq "$(git ls-files .worktrees)" ""

# .worktreeinclude (gitignore syntax) names ignored files to copy into each new workspace: only
# files both named and ignored come (tracked ones come with the checkout, untracked-but-not-ignored
# ones are the user's work). setup.copy adds patterns the same way.
. "$(dirname "$0")/common.sh"
make_repo app
printf '.env*\n*.key\nlocal/\n' >.gitignore
printf '.env*\n!.env.example\nnotes.txt\nconfig/tracked.cfg\n' >.worktreeinclude
mkdir -p config && echo tracked >config/tracked.cfg
git add .gitignore .worktreeinclude config && git commit -qm include
echo SECRET=1 >.env
echo EXAMPLE=1 >.env.example
echo LOCAL=1 >.env.local
chmod 600 .env.local
mkdir -p sub && echo NESTED=1 >sub/.env
echo draft >notes.txt # named, but not ignored: the user's work, not copied
echo key >server.key  # ignored, but not named
mkdir -p local && echo x >local/cache

ws=$(berth new x 2>"$TMPDIR/err")
assert_eq "$(cat "$ws/.env")" "SECRET=1"
assert_eq "$(cat "$ws/.env.local")" "LOCAL=1"
assert_eq "$(stat -c %a "$ws/.env.local")" 600 "mode kept"
assert_eq "$(cat "$ws/sub/.env")" "NESTED=1"
[[ ! -e $ws/.env.example ]]
[[ ! -e $ws/notes.txt ]]
[[ ! -e $ws/server.key ]]
[[ ! -e $ws/local ]]
assert_eq "$(cat "$ws/config/tracked.cfg")" tracked
assert_contains "$(cat "$TMPDIR/err")" "copied .env"
# The copies are ignored in the workspace too: it is clean.
assert_eq "$(git -C "$ws" status --porcelain)" ""

# setup.copy adds patterns (here from the command line); reported with --json.
json=$(berth --json -c 'setup.copy=*.key' new y 2>/dev/null)
ws=$(jq -r .path <<<"$json")
assert_eq "$(cat "$ws/server.key")" key
assert_eq "$(jq -r '[.setup.copies[] | select(.kind == "include") | .path] | sort | join(",")' <<<"$json")" \
  ".env,.env.local,server.key,sub/.env"

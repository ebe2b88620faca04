# A plain folder's .berth.toml and .worktreeinclude set a new workspace up as a checkout's do, from
# the folder itself: .worktreeinclude and setup.copy copy ignored files (.env), setup.clone
# copies a cache, setup.link links one (the link stays out of the workspace's changes, also after
# later snapshots), setup.run runs only once trusted. The folder is not written.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/plain_helpers.sh"
F=$T/folder
mkdir -p "$F/cache" "$F/node_modules/pkg" "$F/conf"
cd "$F"
printf '.env\ncache/\nconf/local.ini\n' >.gitignore
echo 'SECRET=1' >.env
echo 'x=1' >conf/local.ini
echo built >cache/blob
echo dep >node_modules/pkg/index.js # left out by plain.ignore's default node_modules/
echo '.env' >.worktreeinclude
cat >.berth.toml <<TOML
[setup]
copy = ["conf/local.ini"]
clone = ["cache"]
link = ["node_modules"]
run = ["echo ran >'$T/ran'"]
TOML
echo main >main.txt
before=$(folder_digest "$F")

out=$(berth --json new a 2>/dev/null)
ws=$(jq -r .workspace.path <<<"$out")
assert_eq "$(cat "$ws/.env")" 'SECRET=1' ".worktreeinclude's .env"
assert_eq "$(cat "$ws/conf/local.ini")" 'x=1' "setup.copy"
[[ -d $ws/cache && ! -L $ws/cache ]]
assert_eq "$(cat "$ws/cache/blob")" built "setup.clone"
[[ -L $ws/node_modules ]]
assert_eq "$(readlink "$ws/node_modules")" "$F/node_modules" "setup.link"
# setup.run is the folder's own .berth.toml: not run until trusted.
assert_eq "$(jq -c '.setup.commands[0] | [.trusted, .ran]' <<<"$out")" '[false,false]' "untrusted run"
[[ ! -e $T/ran ]]
# None of it is a change of the workspace.
assert_eq "$(berth --json status a | jq .dirty)" false "dirty"
assert_eq "$(git -C "$ws" status --porcelain)" "" "workspace status"
assert_folder_unchanged "$before" "$F" "new with set-up"

berth trust >/dev/null
out=$(berth --json new b 2>/dev/null)
assert_eq "$(jq -c '.setup.commands[0] | [.trusted, .ran, .exit_status]' <<<"$out")" '[true,true,0]' "trusted run"
assert_eq "$(cat "$T/ran")" ran "the command ran"
# A later snapshot (the folder changed) keeps the link out of the workspaces' changes.
echo more >>main.txt
ws2=$(berth --json new c 2>/dev/null | jq -r .workspace.path)
[[ -L $ws2/node_modules ]]
assert_eq "$(git -C "$ws" status --porcelain)" "" "first workspace after a later snapshot"
assert_eq "$(git -C "$ws2" status --porcelain)" "" "new workspace"
# Accepting a workspace brings none of the set-up into the folder.
echo agent >"$ws2/agent.txt"
berth --json accept c >/dev/null
[[ -f agent.txt && -d node_modules && ! -L node_modules ]]
assert_eq "$(cat .env)" 'SECRET=1' ".env"

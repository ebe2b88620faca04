# Shared config damaged behind berth's back (a hook's `core.bare = true`, as seen on a husky
# project; `core.worktree`, `core.hooksPath`, `core.fsmonitor` pointing into a workspace): the
# workspace root (here from .berth.toml) stays where it was, doctor reports each with a stable
# code, and `doctor --repair` fixes only the unambiguous ones, saying what it ran.
. "$(dirname "$0")/common.sh"
make_repo app
echo 'workspace_root = ".worktrees"' >.berth.toml
git add .berth.toml && git commit -q -m "berth config"
# Before any workspace (no root recorded yet): the default root is the same with the damage.
git config core.bare true
bare_default=$(berth -c workspace_root= --json pool status | jq -r .dir)
git config core.bare false
ws=$(berth new x)
root=$(berth --json pool status | jq -r .dir)
assert_eq "$root" "$T/app/.worktrees/.pool"
home=$(cat .git/berth/project.json)
default_pool=$(berth -c workspace_root= --json pool status | jq -r .dir) # the default root's
assert_eq "$default_pool" "$(jq -r .default_root <<<"$home")/.pool"
assert_eq "$bare_default" "$default_pool"

check_root() {
  assert_eq "$(berth --json pool status | jq -r .dir)" "$root"
  assert_eq "$(berth path x)" "$ws"
  assert_eq "$(berth --json list | jq -r '.[] | "\(.name) \(.state)"')" "x ready"
  assert_eq "$(cat .git/berth/project.json)" "$home"
  assert_eq "$(berth -c workspace_root= --json pool status | jq -r .dir)" "$default_pool"
}
problem() { jq -r --arg c "$1" '.problems[] | select(.code == $c) | .repair' "$T/report"; }

git config core.bare true
check_root
expect_error bare_repository 1 berth --json new y >"$T/err"
assert_contains "$(jq -r .error.hint "$T/err")" "berth doctor"
# accept would move the checked-out branch under a checkout git no longer sees: refused too,
# whatever the strategy, and nothing changes.
echo change >>"$ws/README.md"
berth commit x -m change >/dev/null
before=$(fingerprint)
for strategy in apply squash merge; do
  expect_error bare_repository 1 berth --json accept x --into main --strategy "$strategy" >/dev/null
  assert_unchanged "$before"
done
expect_error bare_repository 1 berth --json accept x >/dev/null
assert_unchanged "$before"
not 1 berth --json doctor >"$T/report"
assert_contains "$(problem config_core_bare)" "core.bare false"
berth doctor --repair >"$T/repair.out"
assert_contains "$(cat "$T/repair.out")" "core.bare false"
assert_eq "$(git rev-parse --is-bare-repository)" false
git status >/dev/null # the checkout works again

git config core.worktree "$ws"
check_root
not 1 berth --json doctor >"$T/report"
assert_contains "$(problem config_core_worktree)" "--unset-all core.worktree"
berth doctor --repair >/dev/null
assert_eq "$(git config core.worktree || echo unset)" unset
assert_eq "$(git rev-parse --show-toplevel)" "$T/app"

# core.worktree naming a folder that is not the checkout: reported (git works there, and shows
# every file of the project deleted), left to the user (it may be deliberate).
git config core.worktree "$T"
not 1 berth --json doctor >"$T/report"
assert_contains "$(problem config_core_worktree)" "--unset core.worktree"
not 1 berth doctor --repair >/dev/null
assert_eq "$(git config core.worktree)" "$T"
git config --unset core.worktree

# A hooks path into a workspace is reported; setting it back is the user's (nothing changed).
git config core.hooksPath "$ws/.husky"
git config core.fsmonitor "$ws/fsmonitor.sh"
not 1 berth --json doctor >"$T/report"
assert_contains "$(problem config_hooks_path)" "core.hooksPath"
assert_contains "$(problem config_fsmonitor)" "--unset-all core.fsmonitor"
not 1 berth doctor --repair >/dev/null # the hooks path is left: still a problem
assert_eq "$(git config core.hooksPath)" "$ws/.husky"
assert_eq "$(git config core.fsmonitor || echo unset)" unset
git config --unset core.hooksPath
# Still when the workspace is gone: a later `berth new` of that name makes the folder again.
gone=$(berth new gone)
git config core.hooksPath "$gone/.husky"
berth discard gone >/dev/null
not 1 berth --json doctor >"$T/report"
assert_contains "$(problem config_hooks_path)" "core.hooksPath"
git config --unset core.hooksPath
git config core.hooksPath .husky/_ # a project's own hooks path is no problem
git config core.fsmonitor true
assert_eq "$(berth doctor)" "all good"
check_root

# A bare repository named .git with worktrees beside it (no index of its own) is no damage:
# core.bare = true is right there, and left alone.
mkdir "$T/layout" && git clone -q --bare --single-branch --branch main "$T/app" "$T/layout/.git"
git -C "$T/layout/.git" worktree add -q ../main main
cd "$T/layout/main"
berth new w >/dev/null
assert_eq "$(berth doctor --repair)" "all good"
assert_eq "$(git -C "$T/layout/.git" config core.bare)" true

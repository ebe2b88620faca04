#!/usr/bin/env bash
# The default workspace root has no dot component anywhere in its path: tools treat files under a
# dot-directory as hidden (express's `send` refuses them: 55 of its tests failed in a workspace
# under ~/.local/share/berth and passed in the checkout). Workspaces and pool slots under the old
# root keep working; a root with a dot segment is warned about once, naming the reason; a HOME
# with a dot gives way to the folder beside the checkout.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"

make_repo app
ws=$(berth new fresh)
[[ $ws == "$HOME/berth/app-"*/fresh ]] || { echo "not under ~/berth: $ws" >&2; exit 1; }
[[ $ws != */.* ]] || { echo "a dot component in $ws" >&2; exit 1; }
# What express's `send` checks (a path segment starting with a dot), with node's own path module.
if command -v node >/dev/null; then
  node -e 'const p=require("path"); const parts=p.normalize(process.argv[1]).split(p.sep);
    if (parts.some(s => s.length > 1 && s[0] === ".")) { console.error("dot segment"); process.exit(1) }' "$ws/index.js"
fi
berth discard fresh >/dev/null

# An older berth chose ~/.local/share/berth/<project>-<id> and recorded it; a workspace and a pool
# slot live there. Simulated: made under that root, then the record says it was the default.
common=$(git rev-parse --path-format=absolute --git-common-dir)
old=$XDG_DATA_HOME/berth/app-0ld00000
berth -c "workspace_root=$old" new legacy >/dev/null
BERTH_POOL_SIZE=1 berth -c "workspace_root=$old" pool fill >/dev/null
wait_for_fillers
jq -n --arg c "$common" --arg r "$old" '{common_dir: $c, default_root: $r}' >"$common/berth/project.json"
[[ -n $(ls "$old/.pool") ]]

# Today: the old workspace is listed with its path, new ones go to ~/berth (the pooled one from
# the old slot, renamed across), nothing under the old root is orphaned.
assert_eq "$(berth --json list | jq -r '.[] | select(.name == "legacy") | .path')" "$old/legacy"
ws=$(berth new second)
[[ $ws == "$HOME/berth/app-"*/second ]] || { echo "not under ~/berth: $ws" >&2; exit 1; }
assert_eq "$(jq -r .default_root "$common/berth/project.json")" "$(dirname "$ws")"
assert_eq "$(jq -r '.previous_roots[0]' "$common/berth/project.json")" "$old"
assert_eq "$(ls "$old/.pool" 2>/dev/null | wc -l)" 0 "old pool slots left"
berth discard legacy >/dev/null
[[ ! -e $old/legacy ]]
berth doctor >/dev/null
berth discard second >/dev/null
pool_quiesce
[[ -z $(find "$old" -mindepth 1 -maxdepth 2 ! -name .trash ! -name .pool 2>/dev/null) ]] ||
  { echo "left under the old root:" >&2; find "$old" >&2; exit 1; }

# A configured root with a dot segment: one warning naming the reason, the first time only.
berth -c "workspace_root=$T/.hidden/ws" new a >/dev/null 2>"$T/err"
assert_contains "$(cat "$T/err")" "has a dot component ('.hidden')"
assert_contains "$(cat "$T/err")" "hidden"
assert_eq "$(grep -c 'dot component' "$T/err")" 1 "warning lines"
berth -c "workspace_root=$T/.hidden/ws" new b >/dev/null 2>"$T/err"
assert_not_contains "$(cat "$T/err")" "dot component"
berth discard a >/dev/null
berth discard b >/dev/null

# A HOME with a dot component: the root goes beside the checkout instead (same filesystem).
make_repo other
mkdir -p "$T/.dothome"
ws=$(HOME=$T/.dothome berth new x 2>"$T/err")
assert_eq "$(dirname "$(dirname "$ws")")" "$T/berth-workspaces"
assert_not_contains "$(cat "$T/err")" "dot component"
HOME=$T/.dothome berth discard x >/dev/null

# A HOME on another filesystem than the project: the root goes beside the checkout, where clones
# can be copy-on-write and discards are renames (root only: a tmpfs for HOME).
mkdir -p "$T/disk"
if [[ $(id -u) == 0 ]] && mount -t tmpfs -o size=8m tmpfs "$T/disk" 2>/dev/null; then
  trap 'status=$?; cd /; umount -l "$T/disk" 2>/dev/null || true; cleanup $status' EXIT
  mkdir -p "$T/disk/home"
  make_repo third
  ws=$(HOME=$T/disk/home berth new y)
  assert_eq "$(dirname "$(dirname "$ws")")" "$T/berth-workspaces"
  HOME=$T/disk/home berth discard y >/dev/null
fi

#!/usr/bin/env bash
# Names Claude Code may send that berth would refuse ("feature/../x", ".hidden", "a b", "HEAD",
# "x.lock", very long, unicode) map deterministically to valid workspace names: the hook never fails
# on a name, the same name always gives the same workspace, and two different names never share
# one. A valid name is used as it is.
. "$(dirname "$0")/common.sh"
make_repo app
create() {
  jq -n --arg cwd "$T/app" --arg name "$1" '{session_id: "s", cwd: $cwd, hook_event_name: "WorktreeCreate", name: $name}' |
    berth --json hook claude worktree-create 2>/dev/null
}
long=$(printf 'x%.0s' {1..150})
declare -A seen=()
# (tests/unit/test_name.cpp maps many more without making workspaces.)
for name in "agent-a1b2c3" "feat/search" ".hidden" "a b" "a:b" "HEAD" "x.lock" "feature/../x" \
  "ünïcode" "$long" ""; do
  doc=$(create "$name")
  got=$(jq -r .name <<<"$doc")
  path=$(jq -r .path <<<"$doc")
  [[ -d $path ]]
  [[ -z ${seen[$got]:-} ]] || { echo "'$name' and '${seen[$got]}' share workspace '$got'" >&2; exit 1; }
  seen[$got]=$name
done
# Accepted by berth: its own commands list them under those names, at those paths.
assert_eq "$(berth --json list | jq -r '.[].name' | sort)" "$(printf '%s\n' "${!seen[@]}" | sort)"
for got in "${!seen[@]}"; do
  [[ -d $(berth path "$got") ]]
done
# Deterministic: asked again, the same workspace.
assert_eq "$(create "feature/../x" | jq -r .outcome)" reused
assert_eq "$(create "$long" | jq -r .outcome)" reused
# Valid names are kept as they are; others say where they came from.
[[ -n ${seen[agent-a1b2c3]:-} && -n ${seen[feat/search]:-} ]]
doc=$(create "a b")
[[ $(jq -r .name <<<"$doc") =~ ^a-b-[0-9a-f]{8}$ ]] || { echo "unexpected mapping of 'a b': $doc" >&2; exit 1; }
assert_eq "$(jq -r .requested <<<"$doc")" "a b"

# A valid name berth cannot use for a new workspace: its folder is another workspace's (feat/x
# lives in feat-x), or a branch berth/NAME is left over. The hook still gives Claude Code a
# worktree, under a derived name, and the same one when asked again.
berth new feat/x >/dev/null
git branch berth/left
for name in feat-x left; do
  doc=$(create "$name")
  assert_eq "$(jq -r .outcome <<<"$doc")" created "outcome for $name"
  [[ $(jq -r .name <<<"$doc") =~ ^$name-2-[0-9a-f]{8}$ ]] || { echo "unexpected name for $name: $doc" >&2; exit 1; }
  [[ -d $(jq -r .path <<<"$doc") ]]
  again=$(create "$name")
  assert_eq "$(jq -r '.outcome + " " + .path' <<<"$again")" "reused $(jq -r .path <<<"$doc")"
done
echo "ok: ${#seen[@]} names, ${#seen[@]} workspaces"

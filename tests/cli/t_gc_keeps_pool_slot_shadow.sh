#!/usr/bin/env bash
# A warm pool slot's shadow index (made ahead, for the workspace that will take the slot) and its
# birth are no orphans: gc leaves them, while it removes the shadow files of a workspace that is
# gone (a birth among them).
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app 20
export BERTH_POOL_SIZE=1
berth pool fill >/dev/null
wait_for_fillers
shadows=$(git rev-parse --path-format=absolute --git-common-dir)/berth/shadow
slot_shadows() { find "$shadows" -maxdepth 1 -name 'slot-*' | sort; }
before=$(slot_shadows)
[[ -n $before ]] || skip "no shadow index was made for the slot here (no watcher?)"
# (The slot's birth is kept: it was settled with no untracked file.)
slot_shadows | grep -q '\.birth$'
touch "$shadows/gone-ws.index" "$shadows/gone-other.birth"
out=$(berth --json gc)
assert_eq "$(slot_shadows)" "$before" "the slot's shadow after gc"
removed=$(jq -r '[.removed[] | select(.kind == "shadow") | .path] | join(",")' <<<"$out")
assert_contains "$removed" "gone-ws"
assert_contains "$removed" "gone-other"
[[ ! -e $shadows/gone-other.birth ]]
assert_not_contains "$(jq -r '[.removed[] | .path] | join(",")' <<<"$out")" "slot-"

#!/usr/bin/env bash
# The pool carries set-up: slots are prepared with the project's setup.clone copies (never a
# command), so a pooled `new` does not copy node_modules again; a slot whose set-up inputs changed
# is not handed over stale, and the (background) fill refreshes it. `restore --list` counts
# set-up copies apart ("recreated by set-up"), not as lost ignored files.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app
printf 'node_modules/\n' >.gitignore
git add .gitignore && git commit -qm ignore
for p in a b c; do
  mkdir -p "node_modules/$p"
  for i in 1 2 3 4 5; do echo "module $p $i" >"node_modules/$p/f$i.js"; done
done
export BERTH_POOL_SIZE=1 BERTH_SETUP_CLONE=node_modules BERTH_SETUP_RUN='touch ran-setup-run'
berth pool fill >/dev/null
slot=$(berth --json pool | jq -r '.slots[0].path')
[[ -f $slot/node_modules/a/f1.js ]] || { echo "the slot was not prepared" >&2; exit 1; }
[[ ! -e $slot/ran-setup-run ]] || { echo "a setup command ran in a pool slot" >&2; exit 1; }

json=$(berth --json new one 2>"$T/err")
ws=$(jq -r .path <<<"$json")
assert_eq "$(jq -r '.setup.copies[] | select(.path == "node_modules") | .method' <<<"$json")" pool
assert_eq "$(cat "$ws/node_modules/c/f5.js")" "module c 5"
[[ -f $ws/ran-setup-run ]] # the command runs in the workspace, once it is the user's
assert_not_contains "$(cat "$T/err")" "skipped"
# The workspace's copy is its own, and clean.
echo changed >"$ws/node_modules/a/f1.js"
assert_eq "$(cat node_modules/a/f1.js)" "module a 1"
assert_eq "$(git -C "$ws" status --porcelain)" "?? ran-setup-run"
wait_for_fillers

# The user installs a package: the slot's node_modules is stale. Not handed over...
mkdir -p node_modules/d && echo "module d" >node_modules/d/index.js
json=$(berth --json new two 2>/dev/null)
ws=$(jq -r .path <<<"$json")
assert_eq "$(cat "$ws/node_modules/d/index.js")" "module d"
method=$(jq -r '.setup.copies[] | select(.path == "node_modules") | .method' <<<"$json")
[[ $method != pool ]] || { echo "a stale slot was handed over" >&2; exit 1; }
# ...and refreshed by the fill (the one `new` started in the background, or this one).
wait_for_fillers
berth pool fill >/dev/null
json=$(berth --json new three 2>/dev/null)
ws=$(jq -r .path <<<"$json")
assert_eq "$(jq -r '.setup.copies[] | select(.path == "node_modules") | .method' <<<"$json")" pool
assert_eq "$(cat "$ws/node_modules/d/index.js")" "module d"
wait_for_fillers

# Discarded: its node_modules is counted as recreated by set-up, not as lost work.
echo scratch >"$ws/node_modules/.cache-note" # (inside a set-up path: set-up's too)
echo lost >"$ws/build.log" && echo 'build.log' >>"$(git rev-parse --git-common-dir)/info/exclude"
berth discard three >/dev/null 2>&1
wait_for_fillers
berth pool fill >/dev/null
out=$(berth --json restore --list three)
assert_eq "$(jq -r '.[0].ignored_files' <<<"$out")" 1
assert_eq "$(jq -r '.[0].setup_files' <<<"$out")" 17
assert_contains "$(berth restore --list three)" "1 file(s)"
assert_contains "$(berth restore --list three)" "(+17 recreated by set-up)"
pool_quiesce

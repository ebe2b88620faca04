#!/usr/bin/env bash
# A pool slot whose cloned set-up folder is stale deep inside is never handed out: a file edited in
# place in node_modules/pkg/lib/ (same size, same mtime put back: only its ctime tells), and a
# file added to a scoped package (node_modules/@scope/one/lib/: node_modules' own entries do not
# change).
# The new workspace gets the checkout's current content; a refilled slot is pooled again.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app
printf 'node_modules/\n' >.gitignore
git add .gitignore && git commit -qm ignore
mkdir -p node_modules/pkg/lib node_modules/@scope/one
echo "version 1" >node_modules/pkg/lib/index.js
echo "one" >node_modules/@scope/one/index.js
export BERTH_POOL_SIZE=1 BERTH_SETUP_CLONE=node_modules
method_of() { jq -r '.setup.copies[] | select(.path == "node_modules") | .method' <<<"$1"; }

# (1) edited in place deep inside, same size, mtime put back.
berth pool fill >/dev/null
touch -r node_modules/pkg/lib/index.js "$T/stamp"
echo "version 2" >node_modules/pkg/lib/index.js
touch -r "$T/stamp" node_modules/pkg/lib/index.js
json=$(berth --json new one 2>/dev/null)
[[ $(method_of "$json") != pool ]] || { echo "a stale slot was handed out (deep edit)" >&2; exit 1; }
assert_eq "$(cat "$(jq -r .path <<<"$json")/node_modules/pkg/lib/index.js")" "version 2"
wait_for_fillers

# (2) a file added inside a scoped package.
berth pool fill >/dev/null
mkdir node_modules/@scope/one/lib && echo "two" >node_modules/@scope/one/lib/two.js
json=$(berth --json new two 2>/dev/null)
[[ $(method_of "$json") != pool ]] || { echo "a stale slot was handed out (scoped package)" >&2; exit 1; }
assert_eq "$(cat "$(jq -r .path <<<"$json")/node_modules/@scope/one/lib/two.js")" "two"
wait_for_fillers

# Unchanged since the fill: the slot is handed out.
berth pool fill >/dev/null
json=$(berth --json new three 2>/dev/null)
assert_eq "$(method_of "$json")" pool
assert_eq "$(cat "$(jq -r .path <<<"$json")/node_modules/@scope/one/lib/two.js")" "two"
pool_quiesce

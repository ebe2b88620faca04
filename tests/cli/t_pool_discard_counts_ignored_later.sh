# With a pool, discard does not wait for a walk of the whole tree to count the ignored files it
# leaves behind: it says they are not saved (only when there are some), and the background
# deleter counts them before it deletes them. `restore --list` then shows how many went, and how large they were.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app
printf 'build/\n*.log\n' >.gitignore
git add .gitignore && git commit -q -m ignore
export BERTH_POOL_SIZE=1
berth pool fill >/dev/null
ws=$(berth new build 2>/dev/null)
mkdir -p "$ws/build/obj"
head -c 3000 /dev/zero >"$ws/build/obj/main.o"
head -c 500 /dev/zero >"$ws/run.log"
echo keep >"$ws/src.txt"
wait_for_fillers

json=$(berth --json discard build 2>"$TMPDIR/err")
assert_eq "$(jq -c '[.ignored_files, .ignored_bytes]' <<<"$json")" "[null,null]"
assert_contains "$(cat "$TMPDIR/err")" "ignored files (build output) are not saved"
# One with no ignored file gets no such note.
berth new other >/dev/null 2>&1 && wait_for_fillers
berth discard other 2>"$TMPDIR/err" >/dev/null
assert_not_contains "$(cat "$TMPDIR/err")" "ignored files"
wait_for_fillers

# One whose only ignored files are set-up's (a setup.clone of node_modules): no such note either,
# set-up recreates them.
mkdir -p node_modules/dep && echo 'module.exports = 1' >node_modules/dep/index.js
echo 'node_modules/' >>.gitignore && git commit -qam 'ignore node_modules'
berth -c 'setup.clone=["node_modules/"]' new deps >/dev/null 2>&1 && wait_for_fillers
test -f "$(berth path deps)/node_modules/dep/index.js"
berth -c 'setup.clone=["node_modules/"]' discard deps 2>"$TMPDIR/err" >/dev/null
assert_not_contains "$(cat "$TMPDIR/err")" "ignored files"
wait_for_fillers

list=$(berth --json restore --list build)
assert_eq "$(jq -c '.[0] | [.ignored_files, .ignored_bytes]' <<<"$list")" "[2,3500]"
assert_contains "$(berth restore --list build)" "2 file(s), 3.5 KB"
# The other one had none.
assert_eq "$(berth --json restore --list other | jq -c '.[0] | [.ignored_files, .ignored_bytes]')" "[0,0]"
# What was saved is what it always was: the work, not the build output.
ref=$(jq -r '.[0].ref' <<<"$list")
assert_eq "$(git show "$ref:src.txt")" keep
assert_eq "$(git ls-tree -r --name-only "$ref" | grep -c -e '^build/' -e 'run.log' || true)" 0
pool_quiesce

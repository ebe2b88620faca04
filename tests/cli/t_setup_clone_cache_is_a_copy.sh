# setup.clone copies ignored caches (copy-on-write where the filesystem can) and reports how; the
# workspace's copy is its own: editing it leaves the user's untouched.
. "$(dirname "$0")/common.sh"
make_repo app
printf 'node_modules/\n.venv/\n' >.gitignore
cat >.berth.toml <<'TOML'
[setup]
clone = ["node_modules/", ".venv", "target/"]
TOML
git add .gitignore .berth.toml && git commit -qm cache
mkdir -p node_modules/left-pad/bin
echo 'module.exports = 1' >node_modules/left-pad/index.js
printf '#!/bin/sh\necho pad\n' >node_modules/left-pad/bin/pad
chmod 755 node_modules/left-pad/bin/pad
ln -s ../left-pad/bin/pad node_modules/.bin-pad
head -c 300000 /dev/urandom >node_modules/blob.bin
touch -d '2020-01-02 03:04:05' node_modules/left-pad/index.js
before=$(tree_digest node_modules)

json=$(berth --json new x 2>"$TMPDIR/events")
ws=$(jq -r .path <<<"$json")
assert_eq "$(tree_digest "$ws/node_modules")" "$before" "same content, modes and links"
assert_eq "$(stat -c %Y "$ws/node_modules/left-pad/index.js")" "$(stat -c %Y node_modules/left-pad/index.js)" "mtime"
[[ -L $ws/node_modules/.bin-pad ]]
[[ ! -e $ws/.venv && ! -e $ws/target ]] # nothing to clone: skipped quietly
copy=$(jq -c '.setup.copies[] | select(.path == "node_modules")' <<<"$json")
assert_eq "$(jq -r .kind <<<"$copy")" clone
method=$(jq -r .method <<<"$copy")
[[ $method == reflink || $method == copy_file_range || $method == copy ]]
assert_eq "$(jq -r .files <<<"$copy")" 4
(( $(jq -r .bytes <<<"$copy") >= 300000 ))
# Events (--json: NDJSON on stderr) say so as well.
jq -e -s --arg m "$method" 'any(.[]; .type == "copied" and .subject == "node_modules" and .detail == $m)' \
  "$TMPDIR/events" >/dev/null

# A copy, not a link: changing it in the workspace leaves the user's cache as it was.
echo 'module.exports = 2' >"$ws/node_modules/left-pad/index.js"
head -c 1000 /dev/zero >>"$ws/node_modules/blob.bin"
rm "$ws/node_modules/.bin-pad"
assert_eq "$(tree_digest node_modules)" "$before" "the user's cache is untouched"
assert_eq "$(git -C "$ws" status --porcelain)" "" "the cache is ignored in the workspace too"

# A path git does not ignore is not a cache: not copied, and said so.
mkdir -p vendor && echo v >vendor/lib.c
ws=$(berth -c 'setup.clone=vendor' new y 2>"$TMPDIR/err")
[[ ! -e $ws/vendor ]]
assert_contains "$(cat "$TMPDIR/err")" "git does not ignore it"

# A folder that is no git repository: new, list, status, diff, discard and restore leave it
# byte-for-byte alone (mtimes included, no .git); accept writes the agent's created, modified,
# deleted and renamed files, modes and symlinks into it, and keeps the user's edits of other files.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/plain_helpers.sh"
F=$T/folder
make_folder "$F"
cd "$F"
before=$(folder_digest "$F")

out=$(berth --json new agent)
ws=$(jq -r .workspace.path <<<"$out")
base=$(jq -r .workspace.base <<<"$out")
assert_folder_unchanged "$before" "$F" new
[[ -f "$ws/with space/$UNICODE_NAME" && -x $ws/src/run.sh ]]
[[ -L $ws/src/link && $(readlink "$ws/src/link") == ../readme.txt && -f $ws/empty && ! -s $ws/empty ]]
cmp "$ws/src/blob.bin" "$F/src/blob.bin"
# plain.ignore and the folder's .gitignore leave out dependencies and ignored files.
[[ ! -e $ws/node_modules && ! -e $ws/ignored.log && -f $ws/.gitignore ]]
# The private repository lives outside the folder, under berth's data directory.
[[ -n $(find "$XDG_DATA_HOME/berth/plain" -name plain.json) ]]

# A second new of the unchanged folder starts from the same base (no new snapshot commit).
out=$(berth --json new second)
assert_eq "$(jq -r .workspace.base <<<"$out")" "$base" "base of the second workspace"
assert_eq "$(berth --json list | jq 'length')" 2 "workspaces listed"
berth --json status agent >/dev/null
assert_folder_unchanged "$before" "$F" "list and status"

# The agent's work: modified, created (nested), deleted, renamed, mode changes, a new symlink
# target, a binary change, the unicode file changed.
(
  cd "$ws"
  echo agent >>readme.txt
  mkdir -p new/dir && echo fresh >new/dir/a.txt
  rm src/deep/er/file
  mv src/lines.txt src/renamed.txt
  chmod -x src/run.sh
  printf '#!/bin/sh\n' >tool.sh && chmod +x tool.sh
  ln -sfn renamed.txt src/link
  printf 'more\0' >>src/blob.bin
  echo changed >"with space/$UNICODE_NAME"
)
diff=$(berth --json diff agent)
for p in readme.txt new/dir/a.txt src/deep/er/file src/renamed.txt src/run.sh tool.sh src/link src/blob.bin; do
  jq -e --arg p "$p" '[.files[].path] | index($p) != null' <<<"$diff" >/dev/null || {
    echo "diff misses $p: $diff" >&2
    exit 1
  }
done
berth diff agent >/dev/null
assert_folder_unchanged "$before" "$F" diff

# discard and restore of the other workspace: the folder is not touched.
berth --json discard second >/dev/null
assert_folder_unchanged "$before" "$F" discard
berth --json restore second >/dev/null
assert_folder_unchanged "$before" "$F" restore
berth --json discard second >/dev/null

# Meanwhile the user edits other files and adds one.
echo user >>"$F/empty"
echo mine >"$F/user-new.txt"

cp "$ws/src/blob.bin" "$T/blob.expected"
out=$(berth --json accept agent)
jq -e '.conflicts | length == 0' <<<"$out" >/dev/null
[[ ! -e $F/.git ]]
assert_eq "$(cat "$F/readme.txt")" "$(printf 'hello\nagent')" readme
assert_eq "$(cat "$F/new/dir/a.txt")" fresh "created file"
[[ ! -e $F/src/deep/er/file && ! -e $F/src/deep && ! -e $F/src/lines.txt ]]
assert_eq "$(sed -n 7p "$F/src/renamed.txt")" seven "renamed file"
[[ ! -x $F/src/run.sh && -x $F/tool.sh ]]
assert_eq "$(readlink "$F/src/link")" renamed.txt "symlink target"
cmp "$F/src/blob.bin" "$T/blob.expected"
assert_eq "$(cat "$F/with space/$UNICODE_NAME")" changed "unicode name"
# The user's edits and the ignored files are as the user left them.
assert_eq "$(cat "$F/empty")" user "the user's edit"
assert_eq "$(cat "$F/user-new.txt")" mine "the user's new file"
[[ -f $F/node_modules/pkg/index.js && -f $F/ignored.log ]]
# Landed and discarded (not --keep); the next workspace starts from the folder as it is now.
[[ ! -e $ws ]]
out=$(berth --json new after)
ws2=$(jq -r .workspace.path <<<"$out")
assert_eq "$(cat "$ws2/user-new.txt")" mine "next base has the user's file"
assert_eq "$(cat "$ws2/new/dir/a.txt")" fresh "next base has the accepted file"
after=$(folder_digest "$F")
berth --json discard after >/dev/null
assert_folder_unchanged "$after" "$F" "the last discard"

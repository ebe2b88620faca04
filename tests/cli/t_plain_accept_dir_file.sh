# accept into a plain folder writes a file the workspace replaced by a folder (and a folder it
# replaced by a file), a file turned into a symlink and the other way round. Where that meets the
# user's own change in the folder (a file of the user's in the folder the workspace makes a file
# of, a file the user made where the workspace makes a folder) it is refused (exit 5, both paths
# named) or, with --merge, a conflict (exit 3): nothing is changed either way. A file replaced
# by a folder on one side and deleted on the other lands.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/plain_helpers.sh"
F=$T/folder
mkdir -p "$F/d" "$F/e" "$F/gone"
cd "$F"
echo x >d/x
echo q >q
echo ex >e/x
echo g >gone/g
echo s >tolink
ln -s q fromlink
echo r >r

ws=$(berth --json new w | jq -r .workspace.path)
(
  cd "$ws"
  rm -rf d && echo file >d                # a folder replaced by a file
  rm q && mkdir q && echo p >q/p          # a file replaced by a folder
  mkdir n && echo nf >n/f                 # a new folder
  rm -rf e                                # a folder deleted
  rm gone/g && rmdir gone && echo now >gone # a folder emptied, a file of its name
  rm tolink && ln -s r tolink             # a file turned into a symlink
  rm fromlink && echo plain >fromlink     # and a symlink into a file
)

# The user: a file in the folder the workspace makes a file of, a file where it makes a folder.
echo y >d/y
echo mine >n
before=$(folder_digest "$F")
out=$(expect_error plain_folder_changed 5 berth --json accept w --keep)
assert_eq "$(jq -c .error.paths <<<"$out")" '["d","d/y","n","n/f"]' "paths refused"
assert_folder_unchanged "$before" "$F" "the refused accept"
out=$(expect_conflict berth --json accept w --keep --merge)
assert_eq "$(jq -c .conflicts <<<"$out")" '["d","d/y","n","n/f"]' "conflicts"
assert_folder_unchanged "$before" "$F" "the conflicting accept"

# The user takes those back, deletes q (the workspace's folder q lands) and adds a file in the
# folder the workspace deleted (it stays).
rm d/y n q
echo ey >e/y
berth --json accept w >/dev/null
assert_eq "$(cat d)" file "folder -> file"
assert_eq "$(cat q/p)" p "file -> folder"
assert_eq "$(cat n/f)" nf "new folder"
assert_eq "$(ls e)" y "the user's file in the folder the workspace deleted"
assert_eq "$(cat gone)" now "emptied folder -> file"
assert_eq "$(readlink tolink)" r "file -> symlink"
[[ -f fromlink && ! -L fromlink ]]
assert_eq "$(cat fromlink)" plain "symlink -> file"
[[ ! -e .git ]]

# Without any change of the user's: each kind straight, and a later new starts from it.
ws=$(berth --json new v | jq -r .workspace.path)
(cd "$ws" && rm -rf q && echo back >q && rm d && mkdir d && echo again >d/x)
berth --json accept v >/dev/null
assert_eq "$(cat q)" back "folder -> file again"
assert_eq "$(cat d/x)" again "file -> folder again"
ws=$(berth --json new after | jq -r .workspace.path)
assert_eq "$(cat "$ws/q")" back "the next base"

# A file accept rewrites keeps its own permissions (a private 0600 stays private), only the
# executable bit follows the workspace.
seq 1 30 >private && chmod 600 private
seq 1 40 >tool && chmod 750 tool
seq 1 50 >script && chmod 640 script
ws=$(berth --json new perms | jq -r .workspace.path)
(cd "$ws" && echo a >>private && echo b >>tool && chmod -x tool && echo c >>script && chmod +x script)
berth --json accept perms >/dev/null
assert_eq "$(stat -c %a private tool script | tr '\n' ' ')" "600 640 750 " "permissions after accept"
assert_eq "$(tail -n1 private)" a "the private file's change"

# A plain folder that moves is found again by its device and inode (the marker kept outside it):
# doctor reports it, doctor --repair re-links it. `berth forget` removes the private repository
# only when no workspace (nor, without --force, trash) of it is left.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/plain_helpers.sh"
F=$T/folder
make_folder "$F"
cd "$F"
ws=$(berth --json new agent | jq -r .workspace.path)
repo=$(dirname "$(dirname "$(find "$XDG_DATA_HOME/berth/plain" -name plain.json)")")

cd "$T" && mv "$F" "$T/moved" && cd "$T/moved"
# A new folder where the old one was is another folder (its first new makes its own repository).
mkdir "$F" && echo other >"$F/other.txt"
before=$(folder_digest "$T/moved")
# Before any repair, every command in the moved folder (`new` too) finds its workspaces: `new`
# makes no second private repository.
assert_eq "$(berth --json list | jq -r '.[].name')" agent "workspaces in the moved folder"
berth --json new second >/dev/null
assert_eq "$(find "$XDG_DATA_HOME/berth/plain" -name plain.json | wc -l)" 1 "private repositories"
berth --json discard second >/dev/null
assert_folder_unchanged "$before" "$T/moved" "new and discard before the repair"
doc=$(not 1 berth --json doctor)
jq -e '.problems | map(.code) | index("plain_folder_moved") != null' <<<"$doc" >/dev/null
berth --json doctor --repair | jq -e '.repaired | length > 0' >/dev/null
berth --json doctor >/dev/null
assert_eq "$(berth --json list | jq -r '.[0].name')" agent "workspace after the move"
assert_folder_unchanged "$before" "$T/moved" "doctor"
# The new folder at the old place is a folder of its own now.
other=$(cd "$F" && berth --json new other | jq -r .workspace.path)
[[ -f $other/other.txt && ! -e $other/readme.txt ]]
assert_eq "$(cd "$F" && berth --json list | jq -r '.[].name')" other "the new folder's workspaces"
(cd "$F" && berth --json discard other >/dev/null && berth --json forget --force >/dev/null)
echo agent >>"$ws/readme.txt"
berth --json accept agent --keep >/dev/null
assert_eq "$(tail -n1 "$T/moved/readme.txt")" agent "accept into the moved folder"
before=$(folder_digest "$T/moved")

# forget: refused while the workspace is left, then while its trash is, then done with --force.
out=$(expect_error plain_in_use 5 berth --json forget)
assert_contains "$(jq -c .error.paths <<<"$out")" "workspace agent"
[[ -d $repo ]]
berth --json discard agent >/dev/null
out=$(expect_error plain_in_use 5 berth --json forget)
assert_contains "$(jq -c .error.paths <<<"$out")" "trash refs/berth/trash/"
[[ -d $repo ]]
out=$(berth --json forget --force)
assert_eq "$(jq -r .repository <<<"$out")" "$(realpath "$repo")" "forgotten repository"
[[ ! -e $repo ]]
assert_folder_unchanged "$before" "$T/moved" forget
expect_error not_a_repository 1 berth --json list >/dev/null
# In a git repository forget is a usage error.
make_repo app
expect_error usage 2 berth --json forget >/dev/null

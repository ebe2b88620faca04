# run (plain and --sandbox), commit and status in a plain folder's workspace work as for a
# repository and leave the folder byte-for-byte alone (no .git either); a sandboxed run can write
# neither the folder nor the private repository's config or hooks. The folder reached through a
# symlink (and from a subdirectory) is the same project: the same private repository.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/plain_helpers.sh"
F=$T/folder
make_folder "$F"
ln -s "$F" "$T/link"
cd "$T/link"
before=$(folder_digest "$F")
ws=$(berth --json new agent | jq -r .workspace.path)
# The same repository from the real path, a subdirectory and the symlink.
assert_eq "$(cd "$F" && berth --json list | jq -r '.[].name')" agent "from the real path"
assert_eq "$(cd "$T/link/src" && berth --json list | jq -r '.[].name')" agent "from a subdirectory"
assert_eq "$(berth -C "$T/link" --json list | jq -r '.[].name')" agent "with -C through the link"
assert_eq "$(find "$XDG_DATA_HOME/berth/plain" -name plain.json | wc -l)" 1 "private repositories"
assert_eq "$(berth path agent)" "$ws" "path"

out=$(berth --json run agent -- sh -c 'echo ran >ran.txt && echo more >>readme.txt && pwd')
assert_eq "$(head -n1 <<<"$out")" "$ws" "the run's directory"
assert_eq "$(tail -n1 <<<"$out" | jq -r .exit_status)" 0 "run's exit status"
assert_eq "$(cat "$ws/ran.txt")" ran "the run's file"
assert_folder_unchanged "$before" "$F" run
status=$(berth --json status agent)
assert_eq "$(jq -r .dirty <<<"$status")" true "dirty after the run"
out=$(berth --json commit agent -m "agent work")
assert_eq "$(berth --json status agent | jq -r .ahead)" 1 "commits ahead after commit"
assert_eq "$(berth --json status agent | jq -r .dirty)" false "clean after commit"
assert_folder_unchanged "$before" "$F" "status and commit"

# Sandboxed: the workspace is written, the folder and the private repository's config are not.
repo=$(dirname "$(dirname "$(find "$XDG_DATA_HOME/berth/plain" -name plain.json)")")
config=$(sha256sum "$repo/config")
sandbox_out=$(berth --json run agent --sandbox -- sh -c "
  echo boxed >boxed.txt
  echo bad >>'$F/readme.txt' 2>/dev/null; echo bad >'$F/new.txt' 2>/dev/null
  echo bad >>'$repo/config' 2>/dev/null; echo bad >'$repo/hooks/post-commit' 2>/dev/null
  git add -A && git commit -qm boxed
  true" 2>/dev/null | tail -n1) || sandbox_status=$?
if [[ ${sandbox_status:-0} != 0 ]]; then
  [[ $(jq -r .error.code <<<"$sandbox_out") == sandbox_unavailable ]] || {
    echo "sandboxed run failed: $sandbox_out" >&2
    exit 1
  }
  echo "(no sandbox here: its part skipped)" >&2
else
  assert_eq "$(cat "$ws/boxed.txt")" boxed "the sandboxed run's file"
  assert_eq "$(berth --json status agent | jq -r .ahead)" 2 "the sandboxed commit"
  assert_eq "$(sha256sum "$repo/config")" "$config" "the private repository's config"
  [[ ! -e $repo/hooks/post-commit ]]
fi
assert_folder_unchanged "$before" "$F" "the sandboxed run"

# The committed work lands with accept like any other.
berth --json accept agent >/dev/null
assert_eq "$(cat "$F/ran.txt")" ran "accepted file"
assert_eq "$(tail -n1 "$F/readme.txt")" more "accepted edit"
[[ ! -e $F/.git ]]

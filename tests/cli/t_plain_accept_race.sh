# A file the user saves in a plain folder while accept writes (after accept looked at the folder,
# before it wrote: a git wrapper edits it just before the writing read-tree) stops the accept
# before it writes anything (plain_folder_changed, exit 5): the user's save is kept, nothing of
# the workspace is written, the workspace is kept; accept again then sees the change. The same
# for a file the user creates where the workspace adds one.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/plain_helpers.sh"
F=$T/folder
mkdir -p "$F" "$T/wrap"
echo one >"$F/a"
echo two >"$F/b"
real_git=$(command -v git)
cat >"$T/wrap/git" <<SH
#!/bin/sh
case "\$*" in *"read-tree -m -u"*) if [ -n "\${RACE:-}" ]; then sh -c "\$RACE"; fi ;; esac
exec "$real_git" "\$@"
SH
chmod +x "$T/wrap/git"
cd "$F"
ws=$(berth --json new r | jq -r .workspace.path)
echo agent >>"$ws/a"
echo agent >>"$ws/b"
echo new >"$ws/c"

for file in a c; do
  race="echo saved >>'$F/$file'"
  out=$(RACE=$race PATH="$T/wrap:$PATH" expect_error plain_folder_changed 5 berth --json accept r)
  assert_contains "$(jq -r .error.message <<<"$out")" "changed while the accept was writing"
  # Nothing of the workspace's was written; the user's save is there.
  assert_eq "$(cat b)" two "b after the race ($race)"
  assert_eq "$(tail -n1 "$file")" saved "the user's save"
  assert_eq "$(berth --json status r | jq -r .state)" ready "the workspace after the race"
  [[ ! -e .git ]]
  assert_eq "$(find "$XDG_DATA_HOME/berth/plain" -name plain-accept.json | wc -l)" 0 "journals left"
  berth --json doctor >/dev/null
  # Accepting again sees the user's change and refuses it as such.
  out=$(expect_error plain_folder_changed 5 berth --json accept r)
  assert_eq "$(jq -c .error.paths <<<"$out")" "[\"$file\"]" "paths refused after the race"
  # (The user takes the save back for the next round.)
  if [[ $file == a ]]; then echo one >a; else rm c; fi
done
# Then the accept lands.
berth --json accept r >/dev/null
assert_eq "$(cat c)" new "accepted after the races"

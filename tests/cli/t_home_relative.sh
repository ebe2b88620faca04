# A relative HOME (`HOME=.`, `HOME=relative/dir`) made berth create its workspace root (and
# settings) inside the user's checkout. It is refused with config_invalid, nothing created; relative
# XDG_* values are ignored (the XDG spec says so), an absolute HOME is used instead.
. "$(dirname "$0")/common.sh"

make_repo app
before=$(fingerprint)
files_before=$(find "$T/app" -path "$T/app/.git" -prune -o -print | LC_ALL=C sort)

for home in . relative/dir; do
  for cmd in "new x" "list" "pool fill 1"; do
    # shellcheck disable=SC2086
    out=$(HOME=$home XDG_DATA_HOME= XDG_CONFIG_HOME= BERTH_POOL_SIZE=1 \
      expect_error config_invalid 2 berth --json $cmd)
    assert_contains "$(jq -r .error.message <<<"$out")" "HOME is a relative path ('$home')"
    assert_contains "$(jq -r .error.hint <<<"$out")" "absolute path"
  done
  # The text form too, and from a subfolder.
  (cd src && HOME=$home XDG_DATA_HOME= XDG_CONFIG_HOME= not 2 berth new y)
  assert_contains "$(last_stderr)" "relative path"
done
assert_unchanged "$before"
assert_eq "$(find "$T/app" -path "$T/app/.git" -prune -o -print | LC_ALL=C sort)" "$files_before"

# A relative HOME with absolute XDG dirs: ~/berth cannot be the root, the folder beside the
# checkout is (on the project's filesystem, no dot component).
ws=$(HOME=. berth new z)
assert_eq "$(dirname "$(dirname "$ws")")" "$T/berth-workspaces"
berth discard z >/dev/null

# A relative XDG_DATA_HOME / XDG_CONFIG_HOME is ignored (and the root is not under them anyway;
# the project keeps the root it was given first).
ws=$(XDG_DATA_HOME=rel/data XDG_CONFIG_HOME=rel/config berth new w)
assert_eq "$(dirname "$(dirname "$ws")")" "$T/berth-workspaces"
[[ ! -e $T/app/rel ]]
berth discard w >/dev/null

# workspace_root = "~/..." with a relative HOME: refused too.
before=$(fingerprint)
HOME=. expect_error config_invalid 2 berth --json -c 'workspace_root=~/ws' new v >/dev/null
assert_unchanged "$before"
[[ ! -e $T/app/ws ]]

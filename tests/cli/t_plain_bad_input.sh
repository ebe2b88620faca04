# Folders and inputs a plain folder's `new` must refuse, each with a one-line error (code, hint,
# documented exit status), the folder unchanged and no private repository left behind: `/`, the
# home directory, a folder holding it, berth's own data directory (inside it and around it), the
# place berth makes workspaces in, an invalid name (`..`), a workspace root inside the folder
# (the user's setting refused; the folder's own .berth.toml's ignored with a warning), a file or
# folder berth cannot read (as a user who is not root). A FIFO or a socket in the folder is
# left out of the snapshot and left alone; a file that comes and goes while berth reads the
# folder does not make `new` fail.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/plain_helpers.sh"
AREA=$XDG_DATA_HOME/berth/plain
no_private_repository() {
  [[ ! -d $AREA ]] || {
    assert_eq "$(find "$AREA" -mindepth 1 -maxdepth 1 ! -name by-path | wc -l)" 0 "private repositories after $1"
    assert_eq "$(find "$AREA" -path '*/by-path/*' ! -name .make.lock | wc -l)" 0 "links after $1"
  }
}
refused() { # DIR CODE STATUS TEXT ARGS...: `berth ARGS` in DIR refused so, its message holding TEXT
  local dir=$1 code=$2 status=$3 text=$4 out
  shift 4
  out=$(cd "$dir" && expect_error "$code" "$status" berth --json "$@")
  assert_contains "$(jq -r .error.message <<<"$out")" "$text"
}

mkdir -p "$XDG_DATA_HOME/berth/sub" "$HOME/berth/app-12345678"
refused / not_a_repository 1 "does not keep / as a plain folder" new x
refused "$HOME" not_a_repository 1 "it holds everything" new x
refused "$T" not_a_repository 1 "it holds your home directory" new x
refused "$HOME/.local" not_a_repository 1 "it holds berth's own data directory" new x
refused "$XDG_DATA_HOME/berth/sub" not_a_repository 1 "inside berth's own data directory" new x
refused "$HOME/berth" not_a_repository 1 "berth makes its workspaces in" new x
refused "$HOME/berth/app-12345678" not_a_repository 1 "berth makes its workspaces in" new --plain x
no_private_repository "the refused folders"

F=$T/folder
make_folder "$F"
before=$(folder_digest "$F")
for name in .. ../x a/../b 'with space' -x; do
  refused "$F" invalid_name 2 "invalid workspace name" new -- "$name"
done
no_private_repository "the invalid names"
assert_folder_unchanged "$before" "$F" "the invalid names"

# A workspace root inside the folder: new would write into it.
refused "$F" config_invalid 2 "inside the plain folder" -c workspace_root="$F/wt" new x
no_private_repository "a workspace root inside the folder"
assert_folder_unchanged "$before" "$F" "the refused workspace root"
G=$T/copied
mkdir "$G" && echo data >"$G/data.txt" && echo 'workspace_root = ".worktrees"' >"$G/.berth.toml"
gbefore=$(folder_digest "$G")
out=$(cd "$G" && berth --json new x 2>"$T/err")
assert_contains "$(cat "$T/err")" "workspace_root '.worktrees' ignored"
ws=$(jq -r .workspace.path <<<"$out")
[[ $ws != "$G"/* && -f $ws/data.txt ]]
assert_folder_unchanged "$gbefore" "$G" "new with a workspace root inside the folder"

# A FIFO and a socket: not taken, left as they are, also by accept.
cd "$F"
mkfifo fifo
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$F/sock"
before=$(folder_digest "$F")
ws=$(berth --json new special | jq -r .workspace.path)
[[ ! -e $ws/fifo && ! -e $ws/sock && -f $ws/readme.txt ]]
assert_folder_unchanged "$before" "$F" "new with a FIFO and a socket"
echo agent >>"$ws/readme.txt"
berth --json accept special >/dev/null
[[ -p fifo && -S sock ]]
assert_eq "$(tail -n1 readme.txt)" agent "accepted beside the FIFO"

# Files that come and go while berth reads the folder (a build writing scratch files).
mkdir churn
python3 - "$F/churn" <<'PY' &
import os, sys, time
end = time.time() + 20
j = 0
while time.time() < end and os.path.isdir(sys.argv[1]):
    j += 1
    open(os.path.join(sys.argv[1], "t%d" % (j % 50)), "w").write("x")
    try:
        os.unlink(os.path.join(sys.argv[1], "t%d" % ((j + 25) % 50)))
    except FileNotFoundError:
        pass
    time.sleep(0.002)  # (a build's pace, not a tight loop that never lets a read finish)
PY
churn=$!
# Each new either makes its snapshot (the folder read again when a file vanished under it) or,
# should the folder never hold still through berth's tries, says so plainly (io_error, nothing
# made); a loaded machine can make that happen, so it is allowed, but not every time.
made=0
for n in 1 2 3 4 5 6; do
  status=0
  out=$(berth --json new "churn-$n" 2>/dev/null) || status=$?
  if [[ $status == 0 ]]; then
    made=$((made + 1))
  else
    assert_eq "$(jq -r .error.code <<<"$out")" io_error "churn-$n's error"
    assert_contains "$(jq -r .error.message <<<"$out")" "kept changing while berth read it"
    not 4 berth path "churn-$n" >/dev/null
  fi
  echo "$n" >>readme.txt
done
((made > 0)) || { echo "no new succeeded while files came and went" >&2; false; }
kill "$churn" 2>/dev/null || true
wait "$churn" 2>/dev/null || true
rm -rf churn

# A file and a folder berth cannot read (a user who is not root: root reads them anyway).
U=$T/unreadable
mkdir -p "$U/locked" "$U/ok"
echo a >"$U/a"
echo s >"$U/locked/secret"
echo u >"$U/private.txt"
chmod 000 "$U/locked" "$U/private.txt"
if [[ $(id -u) != 0 ]]; then
  as_user() { "$@"; }
  URING=$XDG_DATA_HOME
elif command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$BERTH_BIN" 2>/dev/null; then
  # As nobody, with a home of its own; the test's folder must be reachable.
  chmod 755 "$T"
  mkdir -p "$T/nobody"
  chown 65534:65534 "$T/nobody"
  as_user() {
    setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$T/nobody" \
      XDG_DATA_HOME="$T/nobody/data" XDG_CONFIG_HOME="$T/nobody/config" \
      XDG_CACHE_HOME="$T/nobody/cache" TMPDIR="$T/nobody" GIT_CONFIG_GLOBAL=/dev/null "$@"
  }
  URING=$T/nobody/data
  chown -R 65534:65534 "$U"
else
  echo "(the unreadable part needs a user who is not root: skipped)" >&2
  exit 0
fi
ubefore=$(chmod 755 "$U/locked" && folder_digest "$U" && chmod 000 "$U/locked")
cd "$U"
out=$(not 1 as_user "$BERTH_BIN" --json new x)
assert_eq "$(jq -r .error.code <<<"$out")" io_error "code for unreadable paths"
assert_eq "$(jq -c .error.paths <<<"$out")" '["locked/","private.txt"]' "the unreadable paths"
assert_contains "$(jq -r .error.hint <<<"$out")" "readable"
AREA=$URING/berth/plain no_private_repository "the unreadable folder"
not 1 as_user "$BERTH_BIN" --json list >/dev/null
chmod 755 "$U/locked"
assert_folder_unchanged "$ubefore" "$U" "the refused new"
# Made readable, the folder is kept as usual.
chmod 644 "$U/private.txt"
ws=$(as_user "$BERTH_BIN" --json new x | jq -r .workspace.path)
assert_eq "$(cat "$ws/locked/secret")" s "the folder once readable"

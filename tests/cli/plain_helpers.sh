# Plain folders (docs/plain.md): a folder that is no git repository, and a digest of it that
# changes with any byte, mode, mtime or entry (a `.git` appearing included).

# A file name with spaces and unicode.
UNICODE_NAME=$(printf '\xc3\xbcn\xc3\xaf c\xc3\xb8d\xc3\xa9.txt')

# make_folder DIR: nested folders, a binary, a symlink, an executable, an empty file, names with
# spaces and unicode, a dependency folder (left out by plain.ignore) and a .gitignore'd file.
make_folder() {
  local f=$1
  mkdir -p "$f/src/deep/er" "$f/with space" "$f/node_modules/pkg"
  printf 'hello\n' >"$f/readme.txt"
  printf 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n' >"$f/src/lines.txt"
  head -c 3000 /dev/urandom >"$f/src/blob.bin"
  printf '\0\1\2' >>"$f/src/blob.bin"
  : >"$f/empty"
  printf '#!/bin/sh\necho hi\n' >"$f/src/run.sh"
  chmod +x "$f/src/run.sh"
  ln -s ../readme.txt "$f/src/link"
  printf 'caf\xc3\xa9\n' >"$f/with space/$UNICODE_NAME"
  echo dep >"$f/node_modules/pkg/index.js"
  echo 'ignored.log' >"$f/.gitignore"
  echo log >"$f/ignored.log"
  echo deep >"$f/src/deep/er/file"
}

# folder_digest DIR: every entry's type, mode, mtime, size, name and link target, and every
# file's content.
folder_digest() {
  (
    cd "$1"
    find . -printf '%y %m %T@ %s %p -> %l\n' | LC_ALL=C sort
    find . -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum
  ) | sha256sum | cut -d' ' -f1
}

# assert_folder_unchanged DIGEST DIR WHAT
assert_folder_unchanged() {
  local now
  now=$(folder_digest "$2")
  assert_eq "$now" "$1" "the folder after $3"
  [[ ! -e $2/.git ]] || {
    echo "a .git appeared in $2 after $3" >&2
    return 1
  }
}

# content_digest DIR: folder_digest without the mtimes: what the folder holds (every entry's type,
# mode, name and link target, every file's content), for comparing with a state made elsewhere.
content_digest() {
  (
    cd "$1"
    find . -printf '%y %m %p -> %l\n' | LC_ALL=C sort
    find . -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum
  ) | sha256sum | cut -d' ' -f1
}

# ---- the plain accept loops ---------------------------------------------------------------------
# (t_plain_accept_killed_at_each_git_call, t_plain_accept_interrupted_at_each_git_call: each round
# makes the folder $F and its workspace x anew, stops the accept of x at one git call, checks.)
# The test defines user_edits (the user's own edits in $F, of files the workspace does not touch)
# and agent_work DIR (the workspace's change); then plain_accept_setup sets F ($T/folder), makes
# $T/template, and sets BEFORE and EXPECTED (content_digest of the folder as it was, with the
# user's edits, and as the accept leaves it) and CALLS (the accept's git calls, counted on a
# round without a fault).

# reset_folder: $F as the template, as the round starts.
reset_folder() {
  rm -rf "$F"
  cp -a "$T/template" "$F"
}

# make_x: a round's start: the folder anew, workspace x with the agent's work, the user's edits.
make_x() {
  reset_folder
  cd "$F"
  agent_work "$(berth new x)"
  user_edits
}

plain_accept_setup() {
  F=$T/folder
  make_folder "$T/template"
  reset_folder
  user_edits
  BEFORE=$(content_digest "$F")
  agent_work "$F"
  EXPECTED=$(content_digest "$F")
  make_x
  CALLS=$(FAULT_SCAN=${FAULT_SCAN:-} count_git_calls accept x)
  assert_eq "$(cat "$FAULT_DIR/status")" 0 "accept without a fault"
  assert_eq "$(content_digest "$F")" "$EXPECTED" "the folder after the accept"
  ((CALLS > 5)) || { echo "only $CALLS git calls seen: is the git wrapper used?" >&2; false; }
}

# Shared set-up of the behaviour tests. Every t_*.sh sources this first:
#
#   . "$(dirname "$0")/common.sh"
#   make_repo app
#   berth new fix-login >/dev/null
#
# Each test gets a private temp dir holding HOME, the XDG dirs, TMPDIR and its repositories; the
# dir is deleted, and every background job killed, when the test exits. Nothing is written outside.

set -Eeuo pipefail
shopt -s inherit_errexit

# The failure report goes to the test's own stderr (fd 9), even from inside a redirected command.
# The failure is also remembered: an EXIT trap of a test's own that runs a command before
# `cleanup` (whose $? is then that command's) cannot turn it into a pass.
exec 9>&2
trap 'echo "FAIL: ${BASH_SOURCE[0]##*/}:$LINENO: $BASH_COMMAND (exit $?)" >&9; TEST_FAILED=1' ERR
TEST_FAILED=

TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SOURCE_DIR=$(cd "$TESTS_DIR/../.." && pwd)
: "${BERTH_BIN:=$SOURCE_DIR/build/dev/berth}"
: "${GIT_BERTH_BIN:=$SOURCE_DIR/build/dev/git-berth}"
BERTH_BIN=$(realpath "$BERTH_BIN" 2>/dev/null || echo "$BERTH_BIN")
GIT_BERTH_BIN=$(realpath "$GIT_BERTH_BIN" 2>/dev/null || echo "$GIT_BERTH_BIN")

skip() {
  echo "SKIP: ${0##*/}: $*" >&2
  exit 77
}

[[ -x $BERTH_BIN ]] || skip "no berth binary at $BERTH_BIN (build first: cmake --build --preset dev)"
command -v git >/dev/null || skip "git is not installed"
command -v jq >/dev/null || skip "jq is not installed (scripts/bootstrap installs it)"

# ---- a private world ------------------------------------------------------------------------

T=$(mktemp -d "${TMPDIR:-/tmp}/berth.XXXXXX")
T=$(realpath "$T")

# cleanup [STATUS]: the test's exit status is STATUS, or that of the last command.
cleanup() {
  local status=${1:-$?}
  trap - ERR
  [[ -z $TEST_FAILED ]] || [[ $status != 0 && $status != 77 ]] || status=1
  # Let a checkout held by hold_checkouts go, so no git or filter outlives the test.
  touch "$T/release" 2>/dev/null || true
  # Only this shell's children: the pid bash keeps for a job is its first process's, which may
  # have ended long ago while the job runs on, and its pid be another test's process by now
  # (pid_max is 32768 on the CI machine, and the suite starts that many processes in seconds).
  local pids mine="" pid stat
  pids=$(jobs -p)
  for pid in $pids; do
    stat=$(cat "/proc/$pid/stat" 2>/dev/null) || continue
    stat=${stat##*) }
    read -r _ stat _ <<<"$stat" # (the parent's pid)
    if [[ $stat == "$$" ]]; then mine+=" $pid"; fi
  done
  if [[ -n $pids ]]; then
    # shellcheck disable=SC2086
    [[ -z $mine ]] || kill -9 $mine 2>/dev/null || true
    wait 2>/dev/null || true
    sleep 0.3
  fi
  # berth's detached processes of this test's repositories: the background pool fillers (`new`
  # and `discard` start them; the automatic gc pass runs in them) first, since a filler still at
  # work starts a watcher again and writes into $T while it is deleted; then the watchers (each
  # would leave within a second of its project going, but no process outlives a test).
  # (With no pool, a discard that left expired trash starts the light gc pass on its own.)
  local round
  for ((round = 0; round < 20; round++)); do
    pkill -9 -f -- "-C $T/.* (pool fill --background|gc --auto)" 2>/dev/null || break
    sleep 0.1
  done
  pkill -f -- "watch serve $T/" 2>/dev/null || true
  # Every --json document the test made berth print matches its schema (a violation fails a
  # test that passed, and is shown for one that failed or was skipped).
  if ! schema_check 2>&9; then
    echo "FAIL: ${0##*/}: a --json document does not match its schema (docs/schema/, above)" >&9
    [[ $status == 0 || $status == 77 ]] && status=1
  fi
  chmod -R u+rwx "$T" 2>/dev/null || true
  rm -rf "$T" 2>/dev/null || { sleep 0.5 && rm -rf "$T"; } || true
  if [[ -e $T ]]; then
    echo "FAIL: ${0##*/}: could not delete $T (something still writes there)" >&9
    [[ $status == 0 || $status == 77 ]] && status=1
  fi
  exit "$status"
}
trap cleanup EXIT
# Killed by ctest's timeout or Ctrl-C: still clean up (bash skips EXIT traps on a fatal signal).
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

export HOME=$T/home
export XDG_DATA_HOME=$T/home/.local/share
export XDG_CONFIG_HOME=$T/home/.config
export XDG_CACHE_HOME=$T/home/.cache
export TMPDIR=$T/tmp
mkdir -p "$HOME" "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME" "$TMPDIR"

# Nothing from the machine or the caller's shell may leak in: no system git config, no outer
# repository, no berth settings, no colour, a fixed language.
export GIT_CONFIG_NOSYSTEM=1
export GIT_CONFIG_GLOBAL=$HOME/.gitconfig
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_COMMON_DIR GIT_OBJECT_DIRECTORY \
  GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_NAMESPACE GIT_CEILING_DIRECTORIES GIT_CONFIG \
  GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT BERTH_DEBUG
# (The suite's own knobs, set by a test preset, are kept in shell variables first: berth reads
# some BERTH_TEST_* of its own.)
CRASH_STRIDE=${BERTH_TEST_CRASH_STRIDE:-1}
SANDBOX_USERS=${BERTH_TEST_SANDBOX_USERS:-}
while IFS= read -r var; do unset "$var"; done < <(compgen -e | grep '^BERTH_' | grep -v '_BIN$' || true)
export GIT_CEILING_DIRECTORIES=$T
export LC_ALL=C NO_COLOR=1
# No warm pool unless a test asks for one: it would leave a background filler running.
export BERTH_POOL_SIZE=0
export GIT_AUTHOR_NAME="Test User" GIT_AUTHOR_EMAIL=user@example.com
export GIT_COMMITTER_NAME="Test User" GIT_COMMITTER_EMAIL=user@example.com
cat >"$HOME/.gitconfig" <<'EOF'
[user]
	name = Test User
	email = user@example.com
[init]
	defaultBranch = main
[advice]
	detachedHead = false
[gc]
	auto = 0
[maintenance]
	auto = false
EOF

berth() { json_logged "$BERTH_BIN" "$@"; }
git-berth() { json_logged "$GIT_BERTH_BIN" "$@"; }

# ---- the JSON contract ----------------------------------------------------------------------
# Every --json document a test makes berth print is checked against its JSON Schema
# (docs/schema/) when the test ends: json_logged keeps each call's argv, exit status and stdout
# and stderr (berth's events) under $JSON_LOG, and cleanup runs
# tests/schema_check.py once over them (Debian's python3: python3-jsonschema, scripts/bootstrap).
# BERTH_SCHEMA_CHECK=0 turns the check off (a machine without python3-jsonschema).
JSON_LOG=$T/tmp/.berth-json-log
SCHEMA_PYTHON=/usr/bin/python3
if [[ ${BERTH_SCHEMA_CHECK:-1} != 0 ]]; then
  [[ -x $SCHEMA_PYTHON && -e /usr/lib/python3/dist-packages/jsonschema/__init__.py ]] ||
    skip "python3-jsonschema is not installed (scripts/bootstrap installs it; BERTH_SCHEMA_CHECK=0 runs without)"
  mkdir -p "$JSON_LOG"
fi

# json_logged CMD...: run CMD (which runs berth: "$BERTH_BIN" ARGS, `git berth ARGS`, or a wrapper
# such as `timeout 20 "$BERTH_BIN" ARGS`) as it is; when ARGS ask for --json, also log the call for
# the schema check. stdout and stderr pass through unchanged (through tee, synchronously: the files
# are complete when the call returns), and so does the exit status.
json_logged() {
  local arg found=0 json=0 previous=
  local -a args=()
  for arg; do
    if ((found)); then
      args+=("$arg")
    elif [[ $arg == "$BERTH_BIN" || $arg == "$GIT_BERTH_BIN" ||
      ($previous == git && $arg == berth) ]]; then
      found=1
    fi
    previous=$arg
  done
  for arg in "${args[@]}"; do
    [[ $arg == -- ]] && break
    [[ $arg == --json ]] && json=1
  done
  if ((!json)) || [[ ! -d $JSON_LOG ]]; then
    "$@"
    return
  fi
  local stem=$JSON_LOG/${EPOCHREALTIME/./}-$BASHPID status=0
  printf '%s\0' "${args[@]}" >"$stem.args"
  { { "$@" 2>&1 >&3 3>&- | tee "$stem.err" >&2 3>&-; } 3>&1 | tee "$stem.out"; } || status=$?
  echo "$status" >"$stem.status"
  return "$status"
}

# schema_check: check the logged documents (cleanup calls it); fails with one line per violation.
schema_check() {
  [[ -d $JSON_LOG ]] || return 0
  compgen -G "$JSON_LOG/*.status" >/dev/null || return 0
  "$SCHEMA_PYTHON" "$SOURCE_DIR/tests/schema_check.py" "$JSON_LOG"
}

# ---- assertions -----------------------------------------------------------------------------

# not CODE CMD...: CMD must fail with exactly exit status CODE. Its stdout passes through (so
# `out=$(not 4 berth --json path x)` works); its stderr is kept in $TMPDIR/not.err.
not() {
  local want=$1
  shift
  local got=0
  "$@" >"$TMPDIR/not.out" 2>"$TMPDIR/not.err" || got=$?
  if [[ $got != "$want" ]]; then
    {
      echo "expected exit $want, got $got from: $*"
      echo "--- stdout"
      cat "$TMPDIR/not.out"
      echo "--- stderr"
      cat "$TMPDIR/not.err"
    } >&2
    return 1
  fi
  cat "$TMPDIR/not.out"
}

# The stderr of the last `not` call.
last_stderr() { cat "$TMPDIR/not.err"; }

assert_eq() {
  local got=$1 want=$2 what=${3:-value}
  if [[ $got != "$want" ]]; then
    printf '%s: expected [%s], got [%s]\n' "$what" "$want" "$got" >&2
    return 1
  fi
}

assert_contains() {
  local haystack=$1 needle=$2
  if [[ $haystack != *"$needle"* ]]; then
    printf 'expected to find [%s] in:\n%s\n' "$needle" "$haystack" >&2
    return 1
  fi
}

assert_not_contains() {
  local haystack=$1 needle=$2
  if [[ $haystack == *"$needle"* ]]; then
    printf 'did not expect [%s] in:\n%s\n' "$needle" "$haystack" >&2
    return 1
  fi
}

# error_code JSON: the "code" of a berth --json error document.
error_code() { jq -r '.error.code' <<<"$1"; }

# expect_error CODE STATUS CMD...: a berth --json call that fails with that error code and exit
# status, printing a well-formed error document ({"error":{"code","message","hint"}}, a one-line
# message) and nothing else on stdout. Prints the document.
expect_error() {
  local code=$1 status=$2
  shift 2
  local out got
  out=$(not "$status" "$@")
  got=$(jq -r 'if (.error | type) == "object" and (.error.code | type) == "string"
                 and (.error.message | type) == "string" and (.error.hint | type) == "string"
                 and (.error.message | test("\n") | not) and .error.message != ""
               then .error.code else "(not a one-line berth error document)" end' <<<"$out") ||
    got="(not JSON)"
  if [[ $got != "$code" ]]; then
    printf 'expected error %s from: %s\ngot %s:\n%s\n' "$code" "$*" "$got" "$out" >&2
    return 1
  fi
  printf '%s\n' "$out"
}

# expect_conflict CMD...: a `berth --json accept|sync` that does not merge: exit 3 and a result
# document (not an error document) whose `conflicts` lists the paths. Prints the document.
expect_conflict() {
  local out
  out=$(not 3 "$@")
  if ! jq -e '(has("error") | not) and (.conflicts | length) > 0 and (.onto | length) == 40' \
    <<<"$out" >/dev/null 2>&1; then
    printf 'expected a conflict result from: %s\ngot:\n%s\n' "$*" "$out" >&2
    return 1
  fi
  printf '%s\n' "$out"
}

# ---- repositories ---------------------------------------------------------------------------

# make_repo NAME [NFILES]: a repository in $T/NAME with one commit (nested folders, an executable,
# a symlink, NFILES extra files), and cd into it.
make_repo() {
  local name=$1 nfiles=${2:-0}
  mkdir -p "$T/$name"
  cd "$T/$name"
  git init -q
  mkdir -p src/lib docs bin
  echo "# $name" >README.md
  printf 'int main(void) { return 0; }\n' >src/main.c
  printf 'int add(int a, int b) { return a + b; }\n' >src/lib/util.c
  printf 'guide\n' >docs/guide.md
  printf '#!/bin/sh\necho run\n' >bin/run.sh
  chmod +x bin/run.sh
  ln -s docs/guide.md GUIDE
  local i
  for ((i = 0; i < nfiles; i++)); do
    mkdir -p "files/$((i % 10))"
    echo "file $i" >"files/$((i % 10))/f$i.txt"
  done
  git add -A
  git commit -q -m "first commit"
}

# make_repo_with_submodule: a repository $T/lib (lib.c), then make_repo app with lib as the
# submodule third_party/x (committed); in $T/app.
make_repo_with_submodule() {
  make_repo lib
  commit_file lib.c 'int lib(void);' 'lib'
  make_repo app
  git -c protocol.file.allow=always submodule add -q "$T/lib" third_party/x
  git commit -qm 'add lib'
}

# discard_while_gc N: start the user's `git gc --prune=now` in a loop (stop it with stop_gc), then
# discard w0..w(N-1). A discard either succeeds or is refused with git_failed (its snapshot kept
# losing objects; nothing deleted): the refused ones' numbers are left in the array `failed`.
discard_while_gc() {
  (while [[ ! -e $T/stop-gc ]]; do git gc -q --prune=now 2>/dev/null || true; done) &
  gc_loop=$!
  failed=()
  local i
  for ((i = 0; i < $1; i++)); do
    if ! berth --json discard "w$i" >"$T/out" 2>/dev/null; then
      assert_eq "$(error_code "$(cat "$T/out")")" git_failed
      jq -r .error.message "$T/out" >&2
      failed+=("$i")
    fi
  done
}
stop_gc() {
  touch "$T/stop-gc"
  wait "$gc_loop"
}

# move_project_with_inside_root: a repository $T/proj whose workspaces live inside it
# (.worktrees), a workspace x there with an untracked u.txt and a commit, then the user moves the
# repository to $T/proj2 (no `git worktree repair`) and stands in it. Sets `files` (x's digest
# before the move) and `new` (where x is now).
move_project_with_inside_root() {
  make_repo proj
  echo 'workspace_root = ".worktrees"' >.berth.toml
  git add .berth.toml
  git commit -q -m "berth config"
  local ws
  ws=$(berth new x)
  echo untracked >"$ws/u.txt"
  (cd "$ws" && commit_file c.txt committed)
  files=$(tree_digest "$ws")
  cd "$T"
  mv proj proj2
  cd proj2
  new=$T/proj2/.worktrees/x
}

# make_filtered_repo NFILES: make_repo app NFILES, plus data.dat ("payload") committed behind a
# required filter `boom` that works (cat) until a test makes its smudge fail
# (git config filter.boom.smudge "sh -c 'exit 3'"): a checkout that fails half-way.
make_filtered_repo() {
  make_repo app "$1"
  echo '*.dat filter=boom' >.gitattributes
  echo payload >data.dat
  git add -A && git commit -q -m "filtered data"
  git config filter.boom.clean cat
  git config filter.boom.smudge cat
  git config filter.boom.required true
}

# make_twenty_files_repo FILTER: make_repo app, plus c/f1.txt..c/f20.txt ("old N") committed behind
# `*.txt filter=FILTER` (configure the filter afterwards): the accept crash and repair tests.
make_twenty_files_repo() {
  make_repo app
  echo "*.txt filter=$1" >.gitattributes
  mkdir c
  local i
  for i in $(seq 1 20); do echo "old $i" >"c/f$i.txt"; done
  git add -A && git commit -q -m "twenty files"
}

# rewrite_twenty DIR: every c/fN.txt in DIR gets "new N" (not committed).
rewrite_twenty() {
  local i
  for i in $(seq 1 20); do echo "new $i" >"$1/c/f$i.txt"; done
}

# commit_file PATH CONTENT [MESSAGE]: write and commit one file in the current worktree.
commit_file() {
  mkdir -p "$(dirname "$1")"
  printf '%s\n' "$2" >"$1"
  git add -- "$1"
  git commit -q -m "${3:-change $1}"
}

# tree_digest DIR: mode, type and content hash of every file under DIR except .git.
tree_digest() {
  (
    cd "$1"
    find . -path ./.git -prune -o ! -type d -printf '%y %m %p -> %l\n' | LC_ALL=C sort
    find . -path ./.git -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum
  ) | sha256sum | cut -d' ' -f1
}

# fingerprint [DIR]: a description of everything a refused command must leave alone in the
# repository at DIR (default: here): refs, worktrees (and their locks), the local config,
# info/exclude, berth's registry, the workspace folders on disk, and for a non-bare repository
# the index, the status and a digest of every work-tree file. Compare with assert_unchanged.
# small_disk SIZE: a tmpfs of SIZE (e.g. 8m) mounted at $T/disk, to run out of space on purpose
# (root only: the test is skipped otherwise); unmounted before the cleanup deletes $T.
small_disk() {
  [[ $(id -u) == 0 ]] || skip "mounting a small tmpfs needs root"
  mkdir -p "$T/disk"
  mount -t tmpfs -o size="$1" tmpfs "$T/disk" 2>/dev/null || skip "cannot mount a tmpfs here"
  trap 'status=$?; cd /; umount -l "$T/disk" 2>/dev/null || true; cleanup $status' EXIT
}

# discard_and_damage NAME PATH: discard workspace NAME, let doctor settle (verify) its trash, then
# delete the loose object of PATH ("lost" for a folder's tree) in the snapshot, as a hand-run
# prune would. Prints the snapshot's ref; `berth doctor` then reports it trash_damaged.
discard_and_damage() {
  local name=$1 path=$2 ref oid
  berth discard "$name" >/dev/null 2>&1
  sleep 1
  berth doctor --repair >/dev/null || true # settles the discarded tree: the trash is verified
  ref=$(git for-each-ref --format='%(refname)' "refs/berth/trash/$name/")
  oid=$(git rev-parse "$ref:$path")
  rm ".git/objects/${oid:0:2}/${oid:2}" # loose: nothing was packed
  local report
  report=$(not 1 berth --json doctor)
  assert_eq "$(jq -r '[.problems[] | select(.code == "trash_damaged")][0].path' <<<"$report")" "$ref" >&2
  echo "$ref"
}

fingerprint() {
  local dir=${1:-.}
  (
    cd "$dir"
    local common bare inside
    { read -r common && read -r bare && read -r inside; } < <(git rev-parse --path-format=absolute \
      --git-common-dir --is-bare-repository --is-inside-work-tree)
    export GIT_OPTIONAL_LOCKS=0
    echo "== refs"
    git for-each-ref --format='%(refname) %(objectname)'
    echo "== worktrees"
    git worktree list --porcelain
    echo "== config"
    git config --local --list
    echo "== exclude"
    cat "$common/info/exclude" 2>/dev/null || true
    echo "== berth dir"
    if [[ -d $common/berth ]]; then
      # shadow/: the watcher's caches (copies of workspace indexes), diffs/: compare's kept
      # diffs; caches, not records.
      (cd "$common/berth" && find . -type f ! -name lock ! -path './shadow/*' ! -path './diffs/*' -print0 |
        LC_ALL=C sort -z | xargs -0r sha256sum)
    fi
    echo "== workspace folders"
    local project
    if [[ $bare == true ]]; then
      project=$(basename "$common" .git)
    else
      project=$(basename "$(dirname "$common")")
    fi
    # The default roots: ~/berth, an older berth's ~/.local/share/berth, and beside the
    # checkout when HOME cannot serve (see ADR 0009).
    local base
    for base in "$HOME/berth" "$XDG_DATA_HOME/berth" "$T/berth-workspaces"; do
      if [[ -d $base ]]; then
        (cd "$base" && find . -mindepth 1 -maxdepth 3 -path "./$project-*" ! -path '*/.git' |
          LC_ALL=C sort)
      fi
    done
    if [[ $inside == true ]]; then
      echo "== index"
      git ls-files -s | sha256sum
      echo "== status"
      git status --porcelain=v2 --untracked-files=all
      echo "== files"
      tree_digest "$(git rev-parse --show-toplevel)"
    fi
  )
}

# assert_unchanged BEFORE [DIR]: the fingerprint of DIR is still BEFORE (shows what changed if not).
assert_unchanged() {
  local now
  now=$(fingerprint "${2:-.}")
  if [[ $now != "$1" ]]; then
    echo "the repository changed:" >&2
    diff <(printf '%s\n' "$1") <(printf '%s\n' "$now") >&2 || true
    return 1
  fi
}

# hold_checkouts PATTERN: from now on, checking out a file matching PATTERN (commit one first)
# touches $T/checkout-started and then waits until $T/release exists (at most 20 s), so a test can
# act while a `berth new` is half-way. The file's content comes out unchanged.
hold_checkouts() {
  cat >"$T/hold-smudge" <<SH
#!/bin/sh
touch "$T/checkout-started"
i=0
while [ ! -e "$T/release" ] && [ \$i -lt 400 ]; do sleep 0.05; i=\$((i + 1)); done
cat
SH
  chmod +x "$T/hold-smudge"
  echo "$1 filter=hold" >>.gitattributes
  git config filter.hold.smudge "$T/hold-smudge"
  git config filter.hold.clean cat
}

# ctrl_c_while_held PID: once a checkout hold_checkouts holds has started, SIGINT to PID's whole
# process group (as a terminal's Ctrl-C), then the checkout let go; waits for PID and leaves its
# exit status in CTRL_C_STATUS.
ctrl_c_while_held() {
  wait_for_file "$T/checkout-started"
  kill -INT -- "-$1"
  sleep 0.3
  touch "$T/release"
  CTRL_C_STATUS=0
  wait "$1" || CTRL_C_STATUS=$?
}

# Wait for FILE to exist (up to ~10 s).
wait_for_file() {
  local i
  for ((i = 0; i < 200; i++)); do
    [[ -e $1 ]] && return 0
    sleep 0.05
  done
  echo "timed out waiting for $1" >&2
  return 1
}

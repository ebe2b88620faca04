#!/usr/bin/env bash
# Commits made inside a sandboxed run land on berth/NAME afterwards; HEAD is on the branch again,
# `git fsck` is clean, and no lock file, temporary object, quarantine or session record is left
# in the shared .git.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

attempt() {
  local ws base out
  ws=$(berth path agent)
  base=$(git rev-parse HEAD)
  out=$(berth --json run agent --sandbox="$MECH" -- sh -c '
    echo one >one.txt && git add one.txt && git commit -q -m one &&
    mkdir -p big && seq 1 20000 >big/numbers.txt && git add big && git commit -q -m two &&
    git rm -q README.md && git commit -q -m three &&
    echo uncommitted >>src/main.c')
  assert_eq "$(jq -r .exit_status <<<"$out")" 0 "exit status"
  assert_eq "$(jq -r .commits <<<"$out")" 3 "commits"
  assert_eq "$(jq -r '.sandbox | length > 0' <<<"$out")" true "sandbox layers"
  assert_eq "$(git log --format=%s "$base..berth/agent" | tr '\n' ' ')" "three two one " "log"
  assert_eq "$(git -C "$ws" symbolic-ref HEAD)" refs/heads/berth/agent "HEAD"
  assert_eq "$(git -C "$ws" rev-parse HEAD)" "$(git rev-parse berth/agent)" "HEAD commit"
  git -C "$ws" diff --quiet -- src/main.c && false # the uncommitted change is still there
  assert_eq "$(git show berth/agent:big/numbers.txt | tail -1)" 20000 "content"
  # The objects are in the shared store itself, not only in a quarantine.
  GIT_ALTERNATE_OBJECT_DIRECTORIES= git cat-file -e "berth/agent:big/numbers.txt"
  git fsck --no-progress --strict --no-dangling
  assert_no_leftovers
  # The main checkout and its branch are untouched.
  assert_eq "$(git rev-parse main)" "$base" "main"
  git diff --quiet HEAD
  # berth sees the work like any other.
  assert_eq "$(berth --json status agent | jq -r .ahead)" 3 "ahead"
}
escape_matrix attempt

# `berth gc` never takes a workspace another process is using, and says why for each: one under a
# lease (a `berth run` in it: busy), one the user locked (`git worktree lock --reason`), one with a
# git command's index.lock, one with a process whose current directory is inside. Not as idle, and
# not for the quota either (listed as skipped while the quota stays exceeded). Once they are free,
# the same run takes them.
. "$(dirname "$0")/common.sh"
make_repo app

leased=$(berth new leased)
locked=$(berth new locked)
indexed=$(berth new indexed)
inside=$(berth new inside)
# A lease: `berth run` holds it until its command ends ($T/release, made by cleanup too).
berth run leased -- sh -c "touch '$T/running'; while [ ! -e '$T/release' ]; do sleep 0.1; done" \
  >/dev/null &
runner=$!
wait_for_file "$T/running"
# The user's own lock (berth's own, which every workspace has, keeps nothing).
git worktree unlock "$locked"
git worktree lock --reason "my experiment" "$locked"
touch "$(git -C "$indexed" rev-parse --absolute-git-dir)/index.lock"
(cd "$inside" && exec sleep 60) &
sleeper=$!
for _ in $(seq 50); do [[ $(readlink /proc/$sleeper/cwd) == "$inside" ]] && break; sleep 0.05; done

skipped() {
  jq -r --arg c "$1" '[.skipped[] | select(.category == $c) | "\(.name): \(.reason)"] | sort | .[]' \
    <<<"$2" | sed 's/(by process [0-9][0-9]*)/(by process PID)/'
}
want="indexed: in use: git holds its index.lock (a git command at work in it; if none is, remove the file)
inside: process $sleeper works inside it (its current directory)
leased: in use: busy (by process PID)
locked: locked: my experiment"
for run in --dry-run ""; do
  # shellcheck disable=SC2086
  out=$(berth --json gc --older-than 0s $run)
  assert_eq "$(jq '.removed | length' <<<"$out")" 0 "removed ($run)"
  assert_eq "$(skipped idle "$out")" "$want" "skipped as idle ($run)"
  # shellcheck disable=SC2086
  out=$(berth --json -c gc.max_workspaces=1 gc $run)
  assert_eq "$(jq '.removed | length' <<<"$out")" 0 "removed by the quota ($run)"
  assert_eq "$(skipped quota "$out" | sed 's/^\([a-z]*\): over gc.max_workspaces = 1, but /\1: /')" \
    "$want" "skipped by the quota ($run)"
done
assert_eq "$(berth --json list | jq -r '[.[].name] | sort | join(" ")')" "indexed inside leased locked"
assert_contains "$(berth gc --older-than 0s)" "skipped idle     workspace leased: in use: busy"

# Free again: the same run takes them all (to the trash).
touch "$T/release"
wait $runner
kill $sleeper
wait $sleeper 2>/dev/null || true
git worktree unlock "$locked"
rm "$(git -C "$indexed" rev-parse --absolute-git-dir)/index.lock"
out=$(berth --json gc --older-than 0s)
assert_eq "$(jq -r '[.removed[] | select(.kind == "workspace") | .name] | sort | join(" ")' <<<"$out")" \
  "indexed inside leased locked"
assert_eq "$(git for-each-ref refs/berth/trash/ | wc -l)" 4

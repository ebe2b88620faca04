# A snapshot that lost one file's content (its commit still there): `berth doctor` reports it
# (trash_damaged), also after an earlier `--repair` verified the trash; `restore` fails with
# snapshot_damaged and changes nothing. `--repair` never drops what is left: a commit of its other
# files, on its intact parents (the workspace's commits), is kept as refs/berth/damaged/...,
# which `git gc --prune=now` keeps and does not trip on; doctor is clean after, `restore --list`
# shows it as `salvaged` naming the lost file, and `restore` brings back what is left.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new w)
echo c >>"$ws/README.md"
berth commit w -m "valuable commit" >/dev/null
echo keep >"$ws/keep.txt"
echo "gone $RANDOM" >"$ws/gone.txt"
ref=$(discard_and_damage w gone.txt)
before=$(fingerprint)
expect_error snapshot_damaged 1 berth --json restore w >/dev/null
assert_unchanged "$before"

berth doctor --repair >/dev/null || true
rest=${ref#refs/berth/trash/}
kept=$(git rev-parse --verify -q "refs/berth/damaged/$rest")
not 1 git rev-parse --verify -q "$ref" >/dev/null
assert_eq "$(git show "$kept:keep.txt")" keep
assert_contains "$(git log -1 --format=%B "$kept")" "Berth-Missing: gone.txt"
assert_contains "$(git log --format=%s "$kept")" "valuable commit"
assert_contains "$(cat .git/berth/trash-damaged)" "refs/berth/damaged/$rest"
git gc -q --prune=now # works, and keeps what is left
assert_eq "$(git show "$kept:keep.txt")" keep
assert_contains "$(git log --format=%s "$kept")" "valuable commit"
# Not reported again; listed for what it is, naming what it lost.
report=$(berth --json doctor || true)
assert_eq "$(jq '[.problems[] | select(.code | startswith("trash_damaged", "trash_invalid"))] | length' \
  <<<"$report")" 0
listed=$(berth --json restore --list w)
assert_eq "$(jq -r '.[0].state' <<<"$listed")" salvaged
assert_eq "$(jq -r '.[0].ref' <<<"$listed")" "refs/berth/damaged/$rest"
assert_eq "$(jq -c '.[0].missing' <<<"$listed")" '["gone.txt"]'
# And restored (the only copy left of w): its files but the lost one, its commits, the lost file
# named.
restored=$(berth --json restore w)
ws=$(jq -r .workspace.path <<<"$restored")
assert_eq "$(cat "$ws/keep.txt")" keep
[[ ! -e $ws/gone.txt ]]
assert_contains "$(git -C "$ws" log --format=%s)" "valuable commit"
assert_contains "$(jq -r '.warnings[]' <<<"$restored")" "gone.txt"

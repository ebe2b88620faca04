# A snapshot that lost a whole folder's tree (the object deleted, its commit still there): `doctor
# --repair` keeps what can still be read as refs/berth/damaged/... (it used to drop the snapshot
# from refs/, leaving everything to gc), naming the lost folder; `restore --list` shows it as
# `salvaged`; `restore` brings back its other files, its staged state and its commits, and names
# the folder it lost.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new w)
echo c >>"$ws/README.md"
berth commit w -m "valuable commit" >/dev/null
echo keep >"$ws/keep.txt"
echo staged >"$ws/staged.txt"
git -C "$ws" add staged.txt
mkdir "$ws/lost"
echo "a $RANDOM" >"$ws/lost/a.txt"
echo "b $RANDOM" >"$ws/lost/b.txt"
ref=$(discard_and_damage w lost)
berth doctor --repair >/dev/null || true
rest=${ref#refs/berth/trash/}
kept=$(git rev-parse --verify -q "refs/berth/damaged/$rest")
not 1 git rev-parse --verify -q "$ref" >/dev/null
assert_eq "$(git show "$kept:keep.txt")" keep
assert_contains "$(git log -1 --format=%B "$kept")" "Berth-Missing: lost/"
git gc -q --prune=now # works, and keeps what is left
assert_contains "$(git log --format=%s "$kept")" "valuable commit"

listed=$(berth --json restore --list)
assert_eq "$(jq -r '.[0].state' <<<"$listed")" salvaged
assert_eq "$(jq -c '.[0].missing' <<<"$listed")" '["lost/"]'
text=$(berth restore --list 2>&1)
assert_contains "$text" salvaged
assert_contains "$text" "lost/"

restored=$(berth --json restore w)
ws=$(jq -r .workspace.path <<<"$restored")
assert_eq "$(cat "$ws/keep.txt")" keep
assert_eq "$(cat "$ws/staged.txt")" staged
[[ ! -e $ws/lost ]]
assert_eq "$(git -C "$ws" diff --cached --name-only)" staged.txt
assert_contains "$(git -C "$ws" log --format=%s)" "valuable commit"
assert_contains "$(jq -r '.warnings[]' <<<"$restored")" "lost/"
report=$(berth --json doctor || true)
assert_eq "$(jq '[.problems[] | select(.code | startswith("trash_"))] | length' <<<"$report")" 0

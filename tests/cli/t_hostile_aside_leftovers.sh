# What repairs moved aside (`berth-aside-*` in an admin dir, or in the common git dir for the
# checkout's submodules) is not left forever: once a day old, doctor reports each folder
# (aside_leftover, its path and repair); --repair deletes what holds no data (FIFOs, sockets,
# symlinks, empty folders: a folder with only those goes whole) and keeps, and names, the
# regular files, with a hint. A fresh one (the evidence of the repair that made it) is left alone.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/hostile_helpers.sh"
make_repo app
ws=$(berth new x)
admin=$(git -C "$ws" rev-parse --absolute-git-dir)
rm -f "$admin/logs/HEAD"
mkfifo "$admin/logs/HEAD"
ln -s /dev/zero "$admin/FETCH_HEAD"
rm -f "$admin/ORIG_HEAD"
mkdir -p "$admin/ORIG_HEAD/sub"
echo "planted data" >"$admin/ORIG_HEAD/data.txt"
bounded doctor --repair >/dev/null 2>&1 || true
fresh=$(find "$admin" -maxdepth 1 -name 'berth-aside-*')
[[ -p $fresh/logs_HEAD ]]
bounded doctor >/dev/null # a fresh one is left alone

# A day later (its name holds its time): reported, then cleared but for the planted file.
old=$admin/berth-aside-1000000000-1
mv "$fresh" "$old"
# And one in the common dir (from a repair of the checkout's submodules) that holds no data.
common_old=$T/app/.git/berth-aside-1000000000-2
mkdir -p "$common_old/empty"
mkfifo "$common_old/modules_x_index"
before=$(fingerprint)
report=$(not 1 bounded --json doctor)
assert_unchanged "$before"
codes=$(jq -r '.problems[] | select(.code == "aside_leftover") | "\(.name) \(.path)"' <<<"$report" | sort)
assert_eq "$codes" "null $common_old
x $old"
assert_contains "$(jq -r '.problems[] | select(.code == "aside_leftover") | .repair' <<<"$report")" "berth doctor --repair"

report=$(not 1 bounded --json doctor --repair)
[[ ! -e $common_old ]]
assert_contains "$(jq -r '.repaired[]' <<<"$report")" "$common_old"
[[ ! -e $old/logs_HEAD && ! -e $old/FETCH_HEAD && ! -e $old/ORIG_HEAD/sub ]]
assert_eq "$(cat "$old/ORIG_HEAD/data.txt")" "planted data"
left=$(jq -c '[.problems[] | select(.code == "aside_leftover")][0]' <<<"$report")
assert_eq "$(jq -r .path <<<"$left")" "$old"
assert_contains "$(jq -r .message <<<"$left")" "ORIG_HEAD/data.txt"
assert_contains "$(jq -r .repair <<<"$left")" "rm -r $old"

rm -r "$old"
bounded doctor >/dev/null
assert_eq "$(bounded --json status x | jq -r .state)" ready

# The trash: `restore NAME@TIME` (and the full ref) restores any snapshot, not only the newest;
# `restore --list` says what each holds; `trash list|drop|purge` with --dry-run; snapshots with
# untracked and uncommitted content survive the user's `git gc --prune=now` byte for byte; bad
# input (a bad duration, --keep -1, a bad NAME@TIME, an unknown snapshot or subcommand, a bad
# gc.max_disk) is a one-line error with its code and exit status and changes nothing.
. "$(dirname "$0")/common.sh"
make_repo app

ws=$(berth new x)
echo "first" >"$ws/round.txt"
head -c 3000 /dev/urandom >"$ws/untracked.bin"
echo "staged edit" >>README.md 2>/dev/null || true
berth discard x >/dev/null
first=$(git for-each-ref --format='%(refname)' refs/berth/trash/x/)
sleep 1 # a second snapshot in another second: another ref name
ws=$(berth new x)
echo "second" >"$ws/round.txt"
berth discard x >/dev/null
spec_first="x@${first##*/}"

list=$(berth --json trash list)
assert_eq "$(jq '.snapshots | length' <<<"$list")" 2
assert_eq "$(jq -r '.snapshots[1].ref' <<<"$list")" "$first"
assert_eq "$(jq '.snapshots[1].holds.files' <<<"$list")" 2
assert_contains "$(berth restore --list)" "$spec_first"
assert_eq "$(berth --json restore --list x | jq '.[1].holds.bytes')" \
  "$(( 3000 + $(printf 'first\n' | wc -c) ))"

# The user's `git gc --prune=now` keeps every object a snapshot needs, by the refs alone: no
# reflog keeps anything alive here.
git reflog expire --expire=now --expire-unreachable=now --all
git gc -q --prune=now
[[ -z $(git count-objects -v | awk '$1 == "count:" && $2 != 0') ]] # all packed, nothing loose
ws=$(berth restore "$spec_first")
assert_eq "$(cat "$ws/round.txt")" "first"
assert_eq "$(git -C "$ws" status --porcelain -- untracked.bin)" "?? untracked.bin"
assert_eq "$(git cat-file blob "$first:untracked.bin" | sha256sum)" "$(sha256sum <"$ws/untracked.bin")"
berth discard x >/dev/null
# The full ref works as well.
ws=$(berth restore "$first" --as y)
assert_eq "$(cat "$ws/round.txt")" "first"
berth discard y >/dev/null
# And NAME@TIME as --json gives it: `spec`, or the name and `time` (ISO 8601).
list=$(berth --json trash list x)
first_json() { jq -r --arg r "$first" ".snapshots[] | select(.ref == \$r) | .$1" <<<"$list"; }
assert_eq "$(first_json spec)" "$spec_first"
ws=$(berth restore "x@$(first_json time)")
assert_eq "$(cat "$ws/round.txt")" "first"
berth discard x >/dev/null
assert_eq "$(jq -r '[.snapshots[].name] | unique | join(" ")' <<<"$list")" x "trash list x: x's only"
assert_eq "$(berth trash list nosuch)" "no snapshot of nosuch in the trash"

# Bad input: one-line errors, nothing changed.
before=$(fingerprint)
expect_error bad_duration 2 berth --json trash purge --older-than 10 >/dev/null
expect_error bad_duration 2 berth --json gc --older-than 3x >/dev/null
expect_error bad_snapshot 2 berth --json restore x@yesterday >/dev/null
expect_error bad_snapshot 2 berth --json trash drop x@12ab >/dev/null
expect_error not_found 4 berth --json trash drop x@1 >/dev/null
expect_error usage 2 berth --json trash empty >/dev/null
expect_error usage 2 berth --json trash purge >/dev/null
expect_error bad_duration 2 berth --json gc --older-than abc >/dev/null
expect_error usage 2 berth --json gc --keep -1 >/dev/null
expect_error not_found 4 berth --json trash drop nosuch >/dev/null
expect_error not_found 4 berth --json restore x@1 >/dev/null
expect_error config_invalid 2 berth --json -c gc.max_disk=lots gc >/dev/null
# The same in the user's file: refused before anything is looked at, dry run or not.
mkdir -p "$XDG_CONFIG_HOME/berth"
printf '[gc]\nmax_disk = "lots"\n' >"$XDG_CONFIG_HOME/berth/config.toml"
for dry in --dry-run ""; do
  # shellcheck disable=SC2086
  out=$(expect_error config_invalid 2 berth --json gc $dry)
  assert_contains "$(jq -r .error.message <<<"$out")" "gc.max_disk = lots"
done
rm "$XDG_CONFIG_HOME/berth/config.toml"
# Dry runs change nothing either, and name what would go.
out=$(berth --json trash drop "$spec_first" --dry-run)
assert_eq "$(jq -r '.snapshots[].ref' <<<"$out")" "$first"
out=$(berth --json trash purge --older-than 0s --dry-run)
n=$(jq '.snapshots | length' <<<"$out")
assert_eq "$(( n >= 3 ))" 1 "snapshots purge would drop"
assert_unchanged "$before"

# drop NAME@TIME drops that one; purge the rest.
grep -q "^dropped $first" <<<"$(berth trash drop "$spec_first")"
not 1 git rev-parse -q --verify "$first" >/dev/null
berth --json trash purge --older-than 0s >/dev/null
assert_eq "$(git for-each-ref refs/berth/trash/ | wc -l)" 0
assert_eq "$(berth trash list)" "the trash is empty"

# Records edited by hand (or by a hostile agent): a path of "/", a path outside every workspace
# root (the user's own folder, with a root to match), a name that disagrees with its file. berth
# validates the paths in records before any use: `list` does not walk the filesystem and shows
# them as `invalid`, commands by name refuse them (record_mismatch, nothing changed), doctor
# reports `record_invalid`, and the user's files are never touched, even by `doctor --repair`.
. "$(dirname "$0")/common.sh"
make_repo app
a=$(berth new a)
berth new b >/dev/null
records=.git/berth/workspaces
mkdir -p "$T/precious" && echo mine >"$T/precious/keep.txt"
jq --arg p / '.name = "root" | .path = $p | .root = ""' "$records/a.json" >"$records/root.json"
jq --arg p "$T/precious" --arg r "$T" '.name = "precious" | .path = $p | .root = $r' \
  "$records/a.json" >"$records/precious.json"
jq '.name = "other"' "$records/b.json" >"$records/c.json" # file c.json says it is 'other'

json=$(json_logged timeout 20 "$BERTH_BIN" --json list) # on a record of "/" git would walk the whole filesystem
state() { jq -r --arg n "$1" '.[] | select(.name == $n) | .state' <<<"$json"; }
assert_eq "$(state root)" invalid
assert_eq "$(state precious)" invalid
assert_eq "$(state other)" invalid
assert_eq "$(state a)" ready
assert_eq "$(state b)" ready
assert_eq "$(berth --json status root | jq -r .state)" invalid
assert_contains "$(jq -r '.[] | select(.name == "root") | .invalid' <<<"$json")" "whole filesystem"
assert_contains "$(jq -r '.[] | select(.name == "other") | .invalid' <<<"$json")" "c.json"
assert_eq "$(jq -r '.[] | select(.name == "a") | .invalid' <<<"$json")" null

before=$(fingerprint)
precious=$(tree_digest "$T/precious")
expect_error record_mismatch 5 berth --json discard root >/dev/null
expect_error record_mismatch 5 berth --json discard --force precious >/dev/null
expect_error record_mismatch 5 berth --json diff precious >/dev/null
expect_error record_mismatch 5 berth --json path root >/dev/null
expect_error not_found 4 berth --json discard c >/dev/null # c.json does not speak for 'c'
report=$(not 1 json_logged timeout 20 "$BERTH_BIN" --json doctor --repair)
for n in root precious other; do
  assert_eq "$(jq -r --arg n $n '[.problems[] | select(.name == $n) | .code] | join(",")' \
    <<<"$report")" record_invalid
done
# The sound workspaces are not blamed for what an untrusted record claims.
assert_eq "$(jq -r '[.problems[] | select(.name == "a" or .name == "b")] | length' <<<"$report")" 0
assert_unchanged "$before"
assert_eq "$(tree_digest "$T/precious")" "$precious"
assert_eq "$(cat "$T/precious/keep.txt")" mine
# The trusted workspaces work as before.
echo work >"$a/w.txt"
assert_contains "$(berth diff --name-only a)" w.txt

# gc removes the private repository of a plain folder that nothing of berth's is left in (no
# workspace, no trash snapshot) when the folder is gone, or unused for gc.older_than, with its
# warm pool slots; it never removes one that still has a trash snapshot (a gone folder's is
# reported as skipped) or a workspace. --dry-run says the same and removes nothing. forget drains
# the pool too. Run from any project (here a repository).
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/plain_helpers.sh"
AREA=$XDG_DATA_HOME/berth/plain
repo_of() { jq -r .repository "$1"; }
mk() { mkdir -p "$T/$1" && echo "$1" >"$T/$1/file" && (cd "$T/$1" && berth new "w-$1" >/dev/null 2>&1); }
repo_for() { grep -l "\"folder\": \"$T/$1\"" "$AREA"/*/berth/plain.json | xargs dirname | xargs dirname; }
# gone: no trash left (snapshot dropped), folder deleted. kept: folder deleted, a trash snapshot
# left. busy: a workspace left. idle: folder there, no workspace or trash.
for f in gone kept busy idle; do mk $f; done
for f in gone kept idle; do (cd "$T/$f" && berth discard "w-$f" >/dev/null 2>&1); done
for f in gone idle; do (cd "$T/$f" && berth trash purge --older-than 0s >/dev/null 2>&1); done
(cd "$T/gone" && BERTH_POOL_SIZE=1 berth pool fill 1 >/dev/null)
gone=$(repo_for gone) kept=$(repo_for kept) busy=$(repo_for busy) idle=$(repo_for idle)
[[ -d $gone && -d $kept && -d $busy && -d $idle ]]
slots=$(git --git-dir="$gone" worktree list --porcelain | grep -c '^worktree .*/\.pool/' || true)
((slots > 0))
pool_dir=$(git --git-dir="$gone" worktree list --porcelain | grep -m1 '^worktree .*/\.pool/' | cut -d' ' -f2-)
rm -rf "$T/gone" "$T/kept" "$T/busy"
idle_digest=$(folder_digest "$T/idle")

make_repo app
dry=$(berth --json gc --dry-run)
assert_eq "$(jq -c '[.removed[] | select(.kind == "plain_repository") | .path]' <<<"$dry")" "[\"$gone\"]" "dry run removes"
# Folders gone with a trash snapshot or a workspace left: said, not removed.
assert_eq "$(jq -c '[.skipped[] | select(.kind == "plain_repository") | .path] | sort' <<<"$dry")" \
  "$(printf '%s\n' "$kept" "$busy" | jq -Rsc 'split("\n")[:-1] | sort')" "dry run skips"
jq -e --arg k "$kept" '.skipped[] | select(.path == $k) | .reason | test("trash")' <<<"$dry" >/dev/null
jq -e --arg b "$busy" '.skipped[] | select(.path == $b) | .reason | test("workspace")' <<<"$dry" >/dev/null
[[ -d $gone && -d $pool_dir ]]
real=$(berth --json gc)
assert_eq "$(jq -c '[.removed[] | select(.kind == "plain_repository")] | map(del(.snapshot))' <<<"$real")" \
  "$(jq -c '[.removed[] | select(.kind == "plain_repository")] | map(del(.snapshot))' <<<"$dry")" "real run = dry run"
[[ ! -e $gone && ! -e $pool_dir && -d $kept && -d $busy && -d $idle ]]
# The kept one's trash can still be restored: its repository and snapshot are there.
[[ -n $(git --git-dir="$kept" for-each-ref refs/berth/trash/) ]]

# The idle folder (still there): removed once unused for longer than --older-than; the folder is
# not touched, and its next `new` makes a new private repository.
for p in index berth berth/workspaces logs/HEAD refs/heads; do [[ ! -e $idle/$p ]] || touch -d "2 days ago" "$idle/$p"; done
out=$(berth --json gc --older-than 1d)
assert_eq "$(jq -c '[.removed[] | select(.kind == "plain_repository") | .path]' <<<"$out")" "[\"$idle\"]" "idle"
[[ ! -e $idle ]]
assert_folder_unchanged "$idle_digest" "$T/idle" "gc"
(cd "$T/idle" && berth new again >/dev/null 2>&1)
[[ -n $(repo_for idle) ]]

# forget drains the warm pool: no slot (a copy of the folder) is left behind.
mk f2
cd "$T/f2"
BERTH_POOL_SIZE=1 berth pool fill 1 >/dev/null
berth discard w-f2 >/dev/null 2>&1
assert_contains "$(berth forget --force)" "removed berth's private repository of $T/f2"
assert_eq "$(find "$HOME/berth" -path '*f2*/.pool/*' -maxdepth 3 | wc -l)" 0 "pool slots after forget"

# berth's git calls in a workspace run berth-fsmonitor as git's fsmonitor hook, by its path alone
# (no shell): it answers as `berth watch hook` does when the watcher answers at once, and hands
# anything else to berth's hook (no watcher: one is started), failing (git then looks at
# everything) only where berth's hook fails too.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new w)
hook=$(dirname "$BERTH_BIN")/berth-fsmonitor
[[ -x $hook ]] || skip "no berth-fsmonitor beside $BERTH_BIN"
echo edit >>"$ws/README.md"
common=$(git -C "$ws" rev-parse --path-format=absolute --git-common-dir)

# git runs it, without a shell, in berth's look at the workspace; what berth sees is git's truth.
GIT_TRACE2_EVENT=$T/trace berth --json status w >"$T/status.json"
grep '"child_start"' "$T/trace" >"$T/hooks"
assert_contains "$(cat "$T/hooks")" "\"argv\":[\"$hook\",\"2\","
assert_contains "$(cat "$T/hooks")" '"use_shell":true'
assert_not_contains "$(cat "$T/hooks")" "watch hook"
assert_eq "$(jq -c '.changes.modified' "$T/status.json")" 1

# Asked by hand: a token it does not know gets "/" (everything); its own token, the paths since.
cd "$ws"
ask() { BERTH_WATCH_DIR=$common BERTH_WATCH_HELPER=$BERTH_BIN "$hook" 2 "$1"; }
answer=$(ask not-a-token | tr '\0' '|')
assert_contains "$answer" "berth:"
assert_contains "$answer" "|/|"
token=${answer%%|*}
echo more >"$ws/new-file.txt"
answer=$(ask "$token" | tr '\0' '|')
assert_contains "$answer" "|new-file.txt|"
assert_not_contains "$answer" "|/|"

# No watcher: berth's hook runs in its place and starts one (its first answer: everything).
berth watch stop >/dev/null
assert_eq "$(berth --json watch status | jq -r .running)" false
answer=$(ask "$token" | tr '\0' '|')
assert_contains "$answer" "|/|"
assert_eq "$(berth --json watch status | jq -r .running)" true

# Where berth's hook would fail, it fails, printing nothing: another protocol, no project named,
# no berth to hand over to while no watcher runs.
out=$(not 1 env BERTH_WATCH_DIR="$common" "$hook" 1 "$token")
assert_eq "$out" ""
out=$(not 1 env -u BERTH_WATCH_DIR "$hook" 2 "$token")
assert_eq "$out" ""
berth watch stop >/dev/null
out=$(not 1 env -u BERTH_WATCH_HELPER BERTH_WATCH_DIR="$common" "$hook" 2 "$token")
assert_eq "$out" ""
assert_eq "$(berth --json watch status | jq -r .running)" false

# And a look after all that still agrees with git.
cd "$T/app"
assert_eq "$(berth --json status w | jq -c '[.changes.modified, .changes.untracked]')" "[1,1]"

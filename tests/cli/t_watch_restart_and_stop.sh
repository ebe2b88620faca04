# The watcher may go away at any time (`berth watch stop`, a crash, kill -9): the next list starts
# a new one, which knows nothing of the old tokens and so has git look at everything; changes made
# while none ran are not missed; so are those made to a workspace folder moved away and back. A
# workspace with submodules is listed without it, and with watch.enabled = false no watcher is
# started at all.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/watch_helpers.sh"
make_repo lib
make_repo app
ws=$(berth new w)

# What git says with no help: every file stat'ed, every folder read.
truth() {
  local dir=$1 base=$2 counts
  counts=$(git_counts "$dir")
  printf '[%s,%s]' "$counts" "$(git -C "$dir" rev-list --count "$base..HEAD")"
}
# check NAME STEP [CONFIG...]: berth list right now agrees with git right now.
check() {
  local name=$1 step=$2 entry got want
  shift 2
  entry=$(berth "$@" --json list | jq -c --arg n "$name" '.[] | select(.name == $n)')
  got=$(jq -c '[.dirty, .changes.staged, .changes.modified, .changes.untracked,
                .changes.conflicted, .ahead]' <<<"$entry")
  want=$(truth "$(jq -r .path <<<"$entry")" "$(jq -r .base <<<"$entry")")
  assert_eq "$got" "$want" "list of $name after: $step"
}
watcher() { berth --json watch status | jq -r "$1"; }
# gone PID: the process has exited (a zombie waiting for its reaper counts as gone), within ~2 s.
gone() {
  local i
  for ((i = 0; i < 200; i++)); do
    [[ -e /proc/$1 && $(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1) != Z ]] || return 0
    sleep 0.01
  done
  echo "process $1 still runs" >&2
  return 1
}

cd "$ws"
check w "nothing yet"
assert_eq "$(watcher .running)" true
pid=$(watcher .pid)
echo one >>README.md
check w "an edit"

# Stopped: the next list starts another one, and changes made meanwhile are seen.
assert_eq "$(berth --json watch stop | jq -c '[.stopped, .running]')" "[true,false]"
gone "$pid"
echo two >>src/main.c
mkdir -p made/while/stopped && echo x >made/while/stopped/x.txt
rm docs/guide.md
check w "changes while no watcher ran"
assert_eq "$(watcher .running)" true "started again by the list"
pid2=$(watcher .pid)
[[ $pid2 != "$pid" ]]
echo y >made/while/stopped/y.txt
check w "a change seen by the new watcher"

# Killed outright: the same.
kill -9 "$pid2"
gone "$pid2"
printf 'X' | dd of=README.md bs=1 seek=0 conv=notrunc status=none
git add src/main.c
echo z >made/z.txt
check w "changes after kill -9"
pid3=$(watcher .pid)
[[ $pid3 != "$pid2" ]]
kill -9 "$pid3"
git reset -q --hard && git clean -fdq
check w "reset and clean right after another kill -9"
check w "and again, with the new watcher"

# A workspace with a submodule is listed the plain way (git's fsmonitor does not look inside
# submodules): never through the watcher's hook, and still right.
cd "$T/app"
git -c protocol.file.allow=always submodule add -q "$T/lib" vendor/lib
git commit -qm 'add lib'
s=$(GIT_ALLOW_PROTOCOL='file' berth new s 2>/dev/null)
echo edit >>"$s/README.md"
echo inside >>"$s/vendor/lib/README.md"
echo new >"$s/vendor/new.txt"
GIT_TRACE=$T/sub.trace check s "changes beside and inside the submodule"
GIT_TRACE=$T/sub.trace check s "the same, again"
grep -q 'status --porcelain=v2' "$T/sub.trace" # the trace is on
# (The other workspace, w, may well be asked through the hook: only s must not be.)
assert_not_contains "$(grep -F "watch hook" "$T/sub.trace" || true)" "cd $s;"
git -C "$s/vendor/lib" commit -qam inside
check s "a commit in the submodule"
git -C "$s" commit -qam "move lib"
check s "the superproject commits it"

# watch.enabled = false: right, and no watcher.
berth watch stop >/dev/null
echo off >>"$ws/README.md" && echo off >"$ws/off.txt"
check w "watcher off (-c)" -c watch.enabled=false
echo more >>"$ws/off.txt" && rm "$ws/off.txt"
check w "watcher off (-c), again" -c watch.enabled=false
BERTH_WATCH_ENABLED=false check w "watcher off (environment)"
BERTH_WATCH_ENABLED=false berth --json status w >/dev/null
BERTH_WATCH_ENABLED=false berth diff w >/dev/null
assert_eq "$(watcher .running)" false "no watcher started with watch.enabled=false"

# The workspace's folder moved away, changed there, and moved back: the watcher stopped following
# it when it went, so neither the list's cached verdict nor the shadow index may be trusted (the
# tokens they hold are from before it was watched again).
check w "the watcher on again"
check w "and nothing changed"
mv "$ws" "$ws.away"
echo "changed while away" >>"$ws.away/README.md"
rm "$ws.away/src/main.c"
mv "$ws.away" "$ws"
check w "the folder moved away, changed, and back"
check w "the same, again"
assert_contains "$(berth diff w --name-only)" "src/main.c"

# A watcher stopped (SIGSTOP) rather than dead still accepts connections but never answers. berth
# gives up on it at once (not after 10 s per query), answers without it, and replaces it: the
# stopped one is killed and a new one serves the next query. Changes are not missed.
. "$(dirname "$0")/common.sh"
# berth, bounded: a regression fails here instead of hanging the suite.
bounded() { json_logged timeout 20 "$BERTH_BIN" "$@"; }
. "$(dirname "$0")/watch_helpers.sh"
make_repo app
ws=$(berth new w)
berth list >/dev/null
watcher() { berth --json watch status | jq -r "$1"; }
pid=$(watcher .pid)
[[ $pid =~ ^[0-9]+$ ]]
# Whatever happens, no stopped process is left behind. (berth kills it: once its zombie is
# reaped, kill fails, which under set -e would end the trap before cleanup.)
trap '_status=$?; kill -CONT "$pid" 2>/dev/null || true; kill -9 "$pid" 2>/dev/null || true
  cleanup "$_status"' EXIT

kill -STOP "$pid"
echo change >>"$ws/README.md"
start=$(date +%s%N)
out=$(bounded --json list)
ms=$((($(date +%s%N) - start) / 1000000))
((ms < 3000)) || { echo "list took $ms ms with a stopped watcher" >&2; false; }
assert_eq "$(jq -r '.[0].changes.modified' <<<"$out")" 1 "the change is seen"

# The stopped watcher is gone (a zombie waiting for its reaper counts as gone)...
for ((i = 0; i < 200; i++)); do
  [[ -e /proc/$pid && $(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -c1) != Z ]] || break
  sleep 0.01
done
((i < 200)) || { echo "the stopped watcher $pid is still there" >&2; false; }
# ...and a new one serves.
start=$(date +%s%N)
bounded list >/dev/null
ms=$((($(date +%s%N) - start) / 1000000))
((ms < 3000))
new=$(watcher .pid)
[[ $new =~ ^[0-9]+$ && $new != "$pid" ]]
echo more >"$ws/new.txt"
out=$(bounded --json list)
assert_eq "$(jq -r '.[0].changes.untracked' <<<"$out")" 1 "a change seen by the new watcher"

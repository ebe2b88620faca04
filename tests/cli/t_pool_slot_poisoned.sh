# Anything written into a pool slot between fill and take (an edit, a new file, a deletion, a
# staged change) must never reach the next "fresh" workspace: each slot is verified at take
# (through the watcher when it followed the slot, by a status otherwise) and a touched one is
# dropped. Both ways are tried.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app 20
echo '*.o' >.gitignore && git add .gitignore && git commit -qm ignore
export BERTH_POOL_SIZE=2
clean=$(tree_digest .)

# poison FIRST: touch the two ready slots, each its own way (kinds FIRST and FIRST+1).
poison() {
  local slots i=$1 s
  mapfile -t slots < <(berth --json pool status | jq -r '.slots[] | select(.state == "ready") | .path')
  ((${#slots[@]} == 2))
  for s in "${slots[@]}"; do
    case $((i++ % 4)) in
      0) echo poisoned >>"$s/README.md" ;;
      1) echo planted >"$s/planted.txt" ;;
      2) rm "$s/src/main.c" ;;
      3) echo obj >"$s/ignored.o" ;;
    esac
  done
}

# fresh NAME: a new workspace exactly like the main checkout, with nothing to show.
fresh() {
  local ws
  ws=$(berth new "$1" 2>/dev/null)
  assert_eq "$(tree_digest "$ws")" "$clean" "files of $1"
  assert_eq "$(git -C "$ws" status --porcelain --ignored)" "" "status of $1"
  assert_eq "$(berth --json status "$1" | jq -r .dirty)" false "dirty of $1"
}

first=0
for watch in true false; do
  export BERTH_WATCH_ENABLED=$watch
  berth pool fill >/dev/null
  mapfile -t slots < <(berth --json pool status | jq -r '.slots[].path')
  poison $first
  first=2
  # The first new finds every slot touched: each is dropped (a cold checkout instead).
  fresh "$watch-1"
  for s in "${slots[@]}"; do [[ ! -e $s ]] || { echo "touched slot $s was kept" >&2; false; }; done
  wait_for_fillers
  # A staged change only (the files as they were): the index tells.
  berth pool fill >/dev/null
  slot=$(berth --json pool status | jq -r '.slots[0].path')
  cp -p "$slot/README.md" "$T/readme"
  echo staged >"$slot/README.md" && git -C "$slot" add README.md && cp -p "$T/readme" "$slot/README.md"
  fresh "$watch-2"
  [[ ! -e $slot ]]
  wait_for_fillers
  # Untouched slots are still used.
  slot=$(berth --json pool status | jq -r '.slots[0].path')
  fresh "$watch-3"
  [[ ! -e $slot ]]
  assert_eq "$(git -C "$(berth path "$watch-3")" rev-parse --absolute-git-dir | xargs basename)" \
    "$(basename "$slot")" "the workspace made from the clean slot"
  # A FIFO planted in a slot's admin dir: dropped too, and neither `new` nor the user's gc hangs.
  wait_for_fillers
  slot=$(berth --json pool status | jq -r '.slots[0].path')
  admin=$(git -C "$slot" rev-parse --absolute-git-dir)
  rm -f "$admin/logs/HEAD" && mkfifo "$admin/logs/HEAD"
  timeout 20 "$BERTH_BIN" new "$watch-4" >/dev/null 2>&1
  [[ ! -e $slot ]]
  wait_for_fillers # (a gc racing the filler's `worktree add` fails on its half-made HEAD)
  timeout 20 git gc -q
  pool_quiesce
done

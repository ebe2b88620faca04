# gc racing `new`/`discard` (and a writer) from other processes loses nothing: every file written
# into a workspace is afterwards in a live workspace or in a snapshot in the trash.
. "$(dirname "$0")/common.sh"
make_repo app
for i in 1 2; do
  ws=$(berth new "keep$i")
  echo "keep $i" >"$ws/work.txt" # uncommitted: gc must never take it
done
touch "$T/written"
churn() {
  for i in 1 2 3 4; do
    ws=$("$BERTH_BIN" new "r$1-$i") || continue
    # Each write that succeeded is noted: that work must be found afterwards.
    echo "r$1-$i" >"$ws/work.txt" 2>/dev/null && echo "r$1-$i" >>"$T/written" || true
    [[ $((i % 2)) == 0 ]] && "$BERTH_BIN" discard "r$1-$i" >/dev/null 2>&1 || true
  done
}
churn a &
a=$!
churn b &
b=$!
for _ in 1 2 3 4; do "$BERTH_BIN" gc --older-than 0s >/dev/null 2>&1 || true; done
wait $a $b
"$BERTH_BIN" gc --older-than 0s >/dev/null
for name in keep1 keep2 ra-1 ra-2 ra-3 ra-4 rb-1 rb-2 rb-3 rb-4; do
  want=$([[ $name == keep* ]] && echo "keep ${name#keep}" || echo "$name")
  path=$(berth --json list | jq -r --arg n "$name" '.[] | select(.name == $n) | .path')
  if [[ -n $path ]]; then
    got=$(cat "$path/work.txt" 2>/dev/null || true)
    # A workspace made but not yet written to by the churn (its new raced gc): nothing to lose.
    [[ -z $got || $got == "$want" ]] || { echo "$name: $got" >&2; exit 1; }
    ! grep -qx -- "$name" "$T/written" || [[ $got == "$want" ]] || { echo "$name: lost" >&2; exit 1; }
    continue
  fi
  [[ $name != keep* ]] || { echo "$name: gc removed a workspace with uncommitted work" >&2; exit 1; }
  found=
  for ref in $(git for-each-ref --format='%(refname)' "refs/berth/trash/$name/"); do
    [[ $(git show "$ref:work.txt" 2>/dev/null) == "$want" ]] && found=1
  done
  # Written (the write succeeded): its work is in a snapshot. Never written (its new failed, or gc
  # took it before the write): then it held nothing.
  if grep -qx -- "$name" "$T/written"; then
    [[ -n $found ]] || { echo "$name: its work is lost" >&2; exit 1; }
  fi
done
# The churn wrote something (the check above is not vacuous).
(($(wc -l <"$T/written") >= 4))

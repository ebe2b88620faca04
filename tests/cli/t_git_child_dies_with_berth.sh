# A git berth started dies with berth: `berth new` killed (SIGKILL, berth alone) while its
# checkout runs leaves no git running on in the half-made workspace (it used to run to the end,
# 9 or 10 times in 10, changing things under the next command's recovery), and the next command
# undoes the creation.
. "$(dirname "$0")/common.sh"
make_repo app 5
commit_file slow.txt slow
hold_checkouts slow.txt
git add .gitattributes && git commit -q -m hold
"$BERTH_BIN" new x >/dev/null 2>&1 &
pid=$!
wait_for_file "$T/checkout-started"
git_in_tree() {
  local p
  for p in $(pgrep -x git || true); do
    [[ $(readlink "/proc/$p/cwd" 2>/dev/null) == "$T"* ]] && echo "$p"
  done
  return 0
}
[[ -n $(git_in_tree) ]] || { echo "no git checkout seen running" >&2; false; }
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
for ((i = 0; i < 40; i++)); do
  [[ -z $(git_in_tree) ]] && break
  sleep 0.05
done
assert_eq "$(git_in_tree)" "" "git processes left running after berth was killed"
touch "$T/release"
assert_eq "$(berth --json list | jq length)" 0 "the half-made workspace is undone"
berth new x >/dev/null

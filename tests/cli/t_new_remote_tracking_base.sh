# Several workspaces at once from a remote-tracking branch of a clone: all succeed, none gets an
# upstream configured, and the clone's config is left alone (plain git fails on config.lock here).
. "$(dirname "$0")/common.sh"
make_repo upstream 50
git clone -q "$T/upstream" "$T/clone"
cd "$T/upstream" && commit_file news.txt "only upstream"
cd "$T/clone" && git fetch -q origin
config_before=$(git config --local --list)
base=$(git rev-parse origin/main)
[[ $base != "$(git rev-parse HEAD)" ]]

pids=()
for i in $(seq 1 8); do
  berth new "r$i" --base origin/main >"$TMPDIR/out.$i" 2>"$TMPDIR/err.$i" &
  pids+=($!)
done
for i in $(seq 1 8); do
  wait "${pids[$((i - 1))]}" || { cat "$TMPDIR/err.$i" >&2; false; }
done

for i in $(seq 1 8); do
  ws=$(cat "$TMPDIR/out.$i")
  assert_eq "$(git -C "$ws" rev-parse HEAD)" "$base"
  [[ -f $ws/news.txt ]]
  assert_eq "$(git -C "$ws" status --porcelain --untracked-files=all)" ""
  not 1 git config "branch.berth/r$i.remote" >/dev/null
  assert_eq "$(berth --json status "r$i" | jq -r .base)" "$base"
done
assert_eq "$(git config --local --list)" "$config_before" "config of the clone"
assert_eq "$(git rev-parse HEAD)" "$(git -C "$T/upstream" rev-parse HEAD~1)" "the clone's own HEAD"

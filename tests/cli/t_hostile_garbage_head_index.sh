# A command run in a workspace may overwrite the admin dir's HEAD or index with garbage (a
# regular file git cannot parse): every later git call failed ("unreadable" forever, diff and
# discard failing with git_failed, doctor saying "all good"). The run's end moves it aside and
# rebuilds it; one written behind berth's back is shown `hostile`, reported by doctor, repaired
# by doctor --repair, and discard keeps the work either way.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new w)
echo precious >"$ws/work.txt"
admin=$(git -C "$ws" rev-parse --absolute-git-dir)

# 1. Through a run: repaired at its end, said in a warning.
berth run w -- sh -c 'echo garbage >"$(git rev-parse --git-dir)/HEAD"' 2>"$T/run.err"
assert_contains "$(cat "$T/run.err")" "HEAD"
assert_eq "$(berth --json status w | jq -r '.state + " " + .head_branch')" "ready berth/w"
assert_contains "$(berth diff --name-only w)" work.txt

# 2. Behind berth's back: the index, then HEAD.
for file in index HEAD; do
  echo garbage >"$admin/$file"
  assert_eq "$(berth --json status w | jq -r .state)" hostile "state with a garbage $file"
  report=$(not 1 berth --json doctor)
  assert_eq "$(jq -r '.problems[0].code' <<<"$report")" hostile_file
  assert_contains "$(jq -r '.problems[0].message' <<<"$report")" "$admin/$file"
  berth doctor --repair >/dev/null
  assert_eq "$(berth --json status w | jq -r '.state + " " + .head_branch')" "ready berth/w"
  assert_eq "$(cat "$ws/work.txt")" precious
done

# 3. discard of a workspace with a garbage HEAD: its work is saved.
echo garbage >"$admin/HEAD"
berth discard w >/dev/null
snap=$(git for-each-ref --format='%(refname)' refs/berth/trash/w/)
assert_eq "$(git show "$snap:work.txt")" precious

# A discard whose trash ref name (refs/berth/trash/NAME/<second>) is taken already, as by
# another discard of the same name in the same second, takes the next one (`<second>-1`): the
# first create is refused and ends the discard's `update-ref --stdin`, the next goes through a
# git of its own. Nothing is lost, the snapshot restores.
. "$(dirname "$0")/common.sh"
make_repo app

ws=$(berth new x)
echo "the agent's work" >"$ws/work.txt"
head=$(git rev-parse HEAD)
# The names of the next few seconds taken.
now=$(date +%s)
for t in $(seq "$now" $((now + 5))); do git update-ref "refs/berth/trash/x/$t" "$head"; done
out=$(berth --json discard x)
ref=$(jq -r .snapshot.ref <<<"$out")
assert_eq "$(sed -E 's#^refs/berth/trash/x/[0-9]+-1$#a -1 name#' <<<"$ref")" "a -1 name" "[$ref]"
assert_eq "$(git cat-file -t "$ref")" commit
# The names taken are as they were.
for t in $(seq "$now" $((now + 5))); do
  assert_eq "$(git rev-parse "refs/berth/trash/x/$t")" "$head" "ref $t untouched"
done
not 1 git show-ref --verify -q refs/heads/berth/x
berth restore x --from "$ref" >/dev/null
assert_eq "$(cat "$(berth path x)/work.txt")" "the agent's work"

# A corrupt record never authorises deleting a tree that is not its own: a record whose path or
# git_dir names another workspace's tree or admin dir, the main checkout, a folder outside the
# workspace root or the root itself is refused (exit 5), changes nothing, leaves the other tree
# whole, and `berth doctor` names the bad record.
. "$(dirname "$0")/common.sh"
make_repo app
good=$(berth new good)
bad=$(berth new bad)
echo "good's work" >"$good/work.txt"
echo "bad's work" >"$bad/work.txt"
common=$(git rev-parse --path-format=absolute --git-common-dir)
record=$common/berth/workspaces/bad.json
cp "$record" "$T/bad.json.orig"
good_git_dir=$(jq -r .git_dir "$common/berth/workspaces/good.json")
root=$(dirname "$good")
mkdir -p "$T/outside"
echo "not berth's" >"$T/outside/keep.txt"

corrupt() { # corrupt FIELD VALUE: bad's record with FIELD set to VALUE
  jq --arg v "$2" ".$1 = \$v" "$T/bad.json.orig" >"$record"
}

for case in "path=$good" "git_dir=$good_git_dir" "path=$T/app" "path=$T/outside" "path=$root" \
  "path=$root/good/../good"; do
  corrupt "${case%%=*}" "${case#*=}"
  before=$(fingerprint)
  good_files=$(tree_digest "$good")
  out=$(not 5 berth --json discard bad)
  code=$(error_code "$out")
  [[ $code == record_mismatch || $code == unsafe_path ]] || {
    echo "$case: unexpected error $out" >&2
    false
  }
  not 5 berth discard bad --force >/dev/null
  assert_contains "$(last_stderr)" "berth doctor"
  assert_unchanged "$before"
  assert_eq "$(tree_digest "$good")" "$good_files" "good's tree after discard bad with $case"
  assert_eq "$(cat "$good/work.txt")" "good's work"
  assert_eq "$(cat "$T/outside/keep.txt")" "not berth's"
  # doctor names the record (exit 1) and --repair does not act on it either.
  not 1 berth doctor >/dev/null
  assert_contains "$(cat "$TMPDIR/not.out")" "'bad'"
  not 1 berth doctor --repair >/dev/null
  assert_eq "$(tree_digest "$good")" "$good_files" "good's tree after doctor --repair with $case"
  assert_eq "$(git -C "$good" status --porcelain)" "?? work.txt"
done

# With its own record back, bad goes as usual; good is untouched.
cp "$T/bad.json.orig" "$record"
berth doctor >/dev/null
berth discard bad >/dev/null
[[ ! -e $bad ]]
assert_eq "$(cat "$good/work.txt")" "good's work"
assert_eq "$(berth --json status good | jq -r .state)" ready

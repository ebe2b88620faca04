# A compare of attempts looked at before (a `berth list`: their verdicts kept) and changed file by
# file since takes each one's state from the watcher's paths, not from a `git status`: only the
# changed paths staged, the new ones asked of the ignore rules. What it keeps for `list` (the
# verdict: what git's status says) is the old one restated for those paths, and must be what
# git's status says, record for record, for every kind of file-level change; `list`, `status`
# and the next compare (which then asks git nothing per attempt) must say what they would have
# said after git's own look. Where a restatement cannot be sure (an intent-to-add entry changed),
# none is kept and the next `list` asks git.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/watch_helpers.sh"
make_repo app
file_level_repo
shadow=$(git rev-parse --path-format=absolute --git-common-dir)/berth/shadow
git_calls() { grep 'trace: built-in: git' "$1" | sed 's/.*trace: built-in: //'; }

# The status kept in workspace $1's verdict (its third field), one record a line, sorted.
verdict_status() {
  python3 - "$shadow/$1.verdict" <<'EOF'
import sys
data = open(sys.argv[1], "rb").read()
assert data.startswith(b"berth-verdict 1\n"), data[:40]
at, fields = len(b"berth-verdict 1\n"), []
while at < len(data):
    nl = data.index(b"\n", at)
    n = int(data[at:nl])
    fields.append(data[nl + 1:nl + 1 + n])
    at = nl + 1 + n
records = [r for r in fields[2].split(b"\0") if r]
sys.stdout.write("\n".join(sorted(r.decode("utf-8", "surrogateescape") for r in records)) + "\n")
EOF
}
# What git's own status of workspace $1 says, in the same form (no index write: the verdict's key
# holds the index's identity).
git_status() {
  GIT_OPTIONAL_LOCKS=0 git -C "$(berth path "$1")" -c core.fsmonitor=false \
    status --porcelain=v2 -z --branch --untracked-files=all --ignore-submodules=none |
    tr '\0' '\n' | sed '/^$/d' | LC_ALL=C sort
}

for name in a b; do
  ws=$(berth new "$name")
  (cd "$ws" && round_one --no-intent)
done
ws_c=$(berth new c)
(cd "$ws_c" && round_one) # (an intent-to-add entry, changed in round two)
berth list >/dev/null
for name in a b c; do
  [[ -f $shadow/$name.verdict ]] || { echo "no verdict for $name after list" >&2; exit 1; }
  (cd "$(berth path "$name")" && round_two)
done
echo "only in b" >>"$(berth path b)/src/lib/util.c"

GIT_TRACE=$T/compare.trace berth --json compare a b c >"$T/first.json"
# No status: each attempt's changed paths staged, the new ones asked of the ignore rules.
assert_not_contains "$(git_calls "$T/compare.trace")" "status"
assert_contains "$(git_calls "$T/compare.trace")" "check-ignore --no-index -z --stdin"

# a's and b's verdicts are git's status, record for record; c's was not restated (its
# intent-to-add entry changed): the old one stays, and is not taken (the watcher names changes
# since it).
for name in a b; do
  assert_eq "$(verdict_status "$name")" "$(git_status "$name")" "$name's verdict"
done
assert_contains "$(verdict_status c)" "1 .A N... 000000 000000 100644"
assert_not_contains "$(verdict_status c)" "README.md"

# list, status and the next compare say what they say after git's own look: the next compare asks
# nothing per attempt (a's and b's captures were kept with their verdicts; c is looked at again).
declare -A status_of
listed=$(berth --json list | jq -c '[.[] | {name, changes, dirty}]')
for name in a b c; do
  status_of[$name]=$(berth --json status "$name" | jq -c '{changes, dirty, ahead, behind}')
done
GIT_TRACE=$T/again.trace berth --json compare a b c >"$T/again.json"
assert_eq "$(jq -S 'del(.attempts[].run)' "$T/again.json")" "$(jq -S 'del(.attempts[].run)' "$T/first.json")"
assert_eq "$(git_calls "$T/again.trace" | grep -c "update-index")" 1 "update-index calls (c's)"
assert_not_contains "$(git_calls "$T/again.trace")" "status"
rm -f "$shadow"/*.verdict # git's own look, from nothing
assert_eq "$(berth --json list | jq -c '[.[] | {name, changes, dirty}]')" "$listed"
for name in a b c; do
  assert_eq "$(berth --json status "$name" | jq -c '{changes, dirty, ahead, behind}')" \
    "${status_of[$name]}" "$name's status"
done
assert_eq "$(jq -S 'del(.attempts[].run)' <(berth --json compare a b c))" \
  "$(jq -S 'del(.attempts[].run)' "$T/first.json")"
# (and what the compare showed was each one's whole state: `berth diff` agrees file by file)
for name in a b c; do
  assert_eq "$(jq -c --arg n "$name" '.attempts[] | select(.name == $n) | .files' "$T/first.json")" \
    "$(berth --json diff "$name" --stat | jq -c '.files')"
done

# More changes after the restated verdict: restated again from it, still git's status.
for name in a b; do
  ws=$(berth path "$name")
  echo "third" >>"$ws/README.md"      # modified again
  git -C "$ws" show :src/main.c >"$ws/src/main.c" # back to the index's (the index untouched)
  echo old >"$ws/gone.txt"            # deleted, then back as it was
  rm "$ws/early.txt"                  # an untracked file gone
done
GIT_TRACE=$T/third.trace berth compare a b >/dev/null
assert_not_contains "$(git_calls "$T/third.trace")" "status"
for name in a b; do
  assert_eq "$(verdict_status "$name")" "$(git_status "$name")" "$name's verdict, restated twice"
done
# Each capture since the first edited the one before for the paths changed since: the patch and
# the files are a whole look's (taken after dropping the verdicts, which drops the captures).
for name in a b; do
  berth diff "$name" >"$T/$name.edited.patch"
  berth --json diff "$name" --stat | jq -c .files >"$T/$name.edited.files"
done
rm -f "$shadow"/*.verdict
for name in a b; do
  cmp "$T/$name.edited.patch" <(berth diff "$name")
  assert_eq "$(cat "$T/$name.edited.files")" "$(berth --json diff "$name" --stat | jq -c .files)"
done

# And what accept lands from such a capture is the workspace's work, file for file: b looked at
# (a `list`), changed again, then accepted into the checkout.
berth list >/dev/null
ws_b=$(berth path b)
echo "fourth" >>"$ws_b/README.md"
echo "new at the end" >"$ws_b/src/last.c"
rm "$ws_b/src/lib/new.c"
digest_b=$(digest_unignored "$ws_b")
GIT_TRACE=$T/accept.trace berth accept b >/dev/null 2>&1
assert_not_contains "$(git_calls "$T/accept.trace")" "status --porcelain=v2 -z --branch"
assert_eq "$(digest_unignored .)" "$digest_b" "the checkout after accept"

# A sha256 repository (`git init --object-format=sha256`): object names are 64 hex digits. A
# hard-coded 40-zero null id broke discard, accept's discard and the pool. The whole lifecycle
# works, and every object name berth reports is as wide as the repository's.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
. "$(dirname "$0")/layout_helpers.sh"

mkdir "$T/app"
cd "$T/app"
git init -q --object-format=sha256
first_commit_here
lifecycle_here

# Object names in berth's output are sha256 ones.
ws=$(berth new h)
echo more >"$ws/h.txt"
berth commit h -m h >/dev/null
status=$(berth --json status h)
assert_eq "$(jq -r '.base | length' <<<"$status")" 64
assert_eq "$(jq -r '.head | length' <<<"$status")" 64
berth discard h >/dev/null
ref=$(git for-each-ref --format='%(refname)' 'refs/berth/trash/h/')
assert_eq "$(git rev-parse "$ref" | tr -d '\n' | wc -c)" 64
assert_eq "$(berth --json restore --list | jq -r '.[] | select(.name == "h") | .commit | length')" 64

# A deletion accepted into the tree (the index entry removed with a null id).
ws=$(berth restore h)
rm "$ws/README.md"
berth accept h >/dev/null
assert_eq "$(git diff --cached --name-status | tr '\t\n' '  ')" "D README.md A h.txt "
git commit -qm "h landed"

# Rebase replays onto a moved branch; a nested repository without a commit is kept by discard and
# comes back with restore; one in sha1 cannot be kept: discard refuses, nothing deleted.
ws=$(berth new r)
(cd "$ws" && commit_file r1.txt one && commit_file r2.txt two)
commit_file user2.txt mine
berth accept r --strategy rebase >/dev/null
assert_eq "$(git log --format=%s -3 | tr '\n' ' ')" "change r2.txt change r1.txt change user2.txt "
ws=$(berth new n)
git init -q --object-format=sha256 "$ws/inner"
echo nested >"$ws/inner/file.txt"
berth discard n >/dev/null
ws=$(berth restore n)
assert_eq "$(cat "$ws/inner/file.txt")" nested
git init -q --object-format=sha1 "$ws/old"
echo old >"$ws/old/file.txt"
before=$(fingerprint)
out=$(expect_error nested_repository 5 berth --json discard n)
assert_contains "$(jq -r .error.message <<<"$out")" "old uses sha1"
assert_unchanged "$before"
[[ -f $ws/old/file.txt ]]

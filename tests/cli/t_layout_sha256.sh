# A sha256 repository (`git init --object-format=sha256`): object names are 64 hex digits. A
# hard-coded 40-zero null id broke discard, accept's discard and the pool. The whole lifecycle
# works, and every object name berth reports is as wide as the repository's.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
. "$(dirname "$0")/layout_helpers.sh"

mkdir "$T/app"
cd "$T/app"
git init -q --object-format=sha256
mkdir src
echo "# app" >README.md
echo 'int main(void) { return 0; }' >src/main.c
git add -A
git commit -qm first
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

# A repository without a commit has nothing to branch from: empty_repository, nothing changed.
. "$(dirname "$0")/common.sh"
mkdir -p "$T/empty" && cd "$T/empty" && git init -q
echo draft >notes.txt
git add notes.txt
before=$(fingerprint)

expect_error empty_repository 1 berth --json new x >/dev/null
expect_error empty_repository 1 berth --json new x --base main >/dev/null
expect_error empty_repository 1 berth --json new x --base HEAD >/dev/null

assert_unchanged "$before"
[[ ! -e .git/berth && ! -e $XDG_DATA_HOME/berth && ! -e $HOME/berth ]]
assert_eq "$(git status --porcelain)" "A  notes.txt"

# `berth new --plain` keeps a directory inside a git repository as a plain folder: the repository
# is not touched (no ref, worktree, config or file of it changes), later commands there find the
# plain project, and accept writes into that directory only.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/plain_helpers.sh"
make_repo app
before_repo=$(fingerprint)
cd docs
ws=$(berth --json new --plain notes | jq -r .workspace.path)
[[ -f $ws/guide.md && ! -e $ws/README.md ]]
assert_eq "$(berth --json list | jq -r '.[].name')" notes "the plain project's workspaces"
echo more >>"$ws/guide.md"
berth --json accept notes >/dev/null
assert_eq "$(tail -n1 guide.md)" more "accepted into the folder"
cd "$T/app"
git checkout -q docs/guide.md
assert_unchanged "$before_repo"
# The repository itself still has no workspace.
assert_eq "$(berth --json list | jq 'length')" 0 "the repository's workspaces"

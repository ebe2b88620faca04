# accept never lands a gitlink the project cannot follow: a submodule's new commit is kept in the
# project's module repository (so `git submodule update` finds it after the workspace is gone),
# one that can be kept nowhere is refused (unreachable_gitlink), and a repository the agent made
# inside the workspace is refused (nested_repository) unless --allow-gitlink says to land it.
. "$(dirname "$0")/common.sh"
make_repo lib
commit_file lib.c 'int lib(void);' 'lib'
git checkout -q --detach # the clone's pushes would otherwise be refused
make_repo app
git -c protocol.file.allow=always submodule add -q "$T/lib" third_party/x
git commit -qm 'add lib'

# 1. A commit in the submodule, landed with squash, then the workspace deleted: the user's
#    checkout can still check the submodule out at that commit.
ws=$(berth new sub)
cd "$ws/third_party/x"
commit_file lib.c 'int lib(int);' 'agent change'
sub_commit=$(git rev-parse HEAD)
cd "$T/app"
json=$(berth --json accept sub --strategy squash --dry-run 2>/dev/null)
assert_contains "$(jq -r '.warnings[]' <<<"$json")" "accept keeps it"
assert_eq "$(git --git-dir=.git/modules/third_party/x for-each-ref refs/berth)" "" "a dry run keeps nothing"
# A refused accept keeps nothing either: the commit is fetched only once the landing is certain.
echo 'user edit' >README.md
git add README.md
before=$(fingerprint)
echo 'agent edit' >"$ws/README.md"
expect_error dirty_target 5 berth --json accept sub --strategy squash >/dev/null
assert_unchanged "$before"
assert_eq "$(git --git-dir=.git/modules/third_party/x for-each-ref refs/berth)" "" "a refused accept keeps nothing"
git reset -q --hard
git -C "$ws" checkout -q -- README.md
json=$(berth --json accept sub --strategy squash 2>/dev/null)
[[ ! -e $ws ]]
assert_eq "$(git rev-parse HEAD:third_party/x)" "$sub_commit" "the gitlink landed"
assert_eq "$(git --git-dir=.git/modules/third_party/x rev-parse "refs/berth/landed/$sub_commit")" \
  "$sub_commit" "kept in the project's module repository"
assert_contains "$(jq -r '.warnings[]' <<<"$json")" "refs/berth/landed/$sub_commit"
git -c protocol.file.allow=always submodule update -q
assert_eq "$(git -C third_party/x rev-parse HEAD)" "$sub_commit"
assert_eq "$(cat third_party/x/lib.c)" 'int lib(int);'

# 2. The user's checkout has no module repository for it: refused, nothing changed.
ws=$(berth new nowhere)
cd "$ws/third_party/x"
commit_file lib.c 'int lib(long);' 'another change'
cd "$T/app"
git submodule deinit -q -f third_party/x
rm -rf .git/modules/third_party/x
before=$(fingerprint)
out=$(expect_error unreachable_gitlink 5 berth --json accept nowhere --strategy squash)
assert_contains "$(jq -r .error.hint <<<"$out")" "push it first"
assert_unchanged "$before"
# Pushed to its remote, it lands.
git -C "$ws/third_party/x" push -q origin HEAD:refs/heads/agent
berth accept nowhere --strategy squash >/dev/null 2>&1
assert_eq "$(git rev-parse HEAD:third_party/x)" "$(git -C "$T/lib" rev-parse agent)"

# 3. A repository of its own inside the workspace: not landed as a gitlink unless asked.
ws=$(berth new own)
mkdir -p "$ws/vendor/own" && cd "$ws/vendor/own"
git init -q && commit_file own.c 'int own;' 'own'
cd "$T/app"
before=$(fingerprint)
out=$(expect_error nested_repository 5 berth --json accept own --strategy squash)
assert_contains "$(jq -r .error.hint <<<"$out")" "--allow-gitlink"
assert_unchanged "$before"
# ... nor one without any commit.
mkdir -p "$ws/vendor/draft" && git -C "$ws/vendor/draft" init -q && echo d >"$ws/vendor/draft/d"
expect_error nested_repository 5 berth --json accept own --strategy squash >/dev/null
assert_unchanged "$before"
rm -rf "$ws/vendor/draft"
berth accept own --strategy squash --allow-gitlink >/dev/null 2>&1
assert_eq "$(git ls-tree HEAD vendor/own | cut -c1-6)" 160000 "landed as a gitlink when asked"

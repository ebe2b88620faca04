# `.git` a symlink to a repository directory elsewhere (dotfile managers, some IDE set-ups): git
# names the main work tree after the directory the link points to, and every accept used to fail.
# The whole lifecycle works, the project named after its work tree.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
. "$(dirname "$0")/layout_helpers.sh"

make_repo app
mkdir "$T/store"
mv .git "$T/store/app-repo"
ln -s "$T/store/app-repo" .git
lifecycle_here

# The link points at a `.git` of another folder: git names that folder; berth still this one.
cd "$T"
make_repo other
mkdir -p "$T/elsewhere/proj"
mv .git "$T/elsewhere/proj/.git"
ln -s "$T/elsewhere/proj/.git" .git
ws=$(berth new g)
assert_contains "$ws" "/other-"
echo linked >"$ws/linked.txt"
(cd "$ws" && berth accept g >/dev/null)
assert_eq "$(git diff --cached --name-only)" linked.txt
[[ ! -e $T/elsewhere/proj/linked.txt ]]

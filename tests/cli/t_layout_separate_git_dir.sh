# A work tree whose git dir lives elsewhere (`git init --separate-git-dir`, `git clone
# --separate-git-dir`): git names its main work tree after the git dir, and every accept used to
# fail ("must be run in a work tree"). The whole lifecycle works, the project named after its
# work tree, from the work tree and from a workspace.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
. "$(dirname "$0")/layout_helpers.sh"

mkdir "$T/store"
git init -q --separate-git-dir "$T/store/app.git" "$T/app"
cd "$T/app"
first_commit_here
lifecycle_here

# A workspace made here is found from the workspace itself, and accept run there lands here.
ws=$(berth new e)
echo from-inside >"$ws/inside.txt"
(cd "$ws" && berth accept e >/dev/null)
assert_eq "$(git diff --cached --name-only)" inside.txt
git commit -qm "e landed"
# And from the git dir itself: the same project, its checkout the work tree.
assert_eq "$(berth -C "$T/store/app.git" --json list | jq -r '.[].name')" ""
ws=$(berth -C "$T/store/app.git" new from-git-dir --base main)
assert_contains "$ws" "/app-"
assert_eq "$(berth -C "$T/store/app.git" --json list | jq -r '.[].name')" from-git-dir
berth discard from-git-dir >/dev/null

# A clone with its git dir elsewhere.
git clone -q --separate-git-dir "$T/store/copy.git" "$T/app" "$T/copy"
cd "$T/copy"
ws=$(berth new f)
assert_contains "$ws" "/copy-"
echo cloned >"$ws/cloned.txt"
berth accept f --strategy merge >/dev/null
[[ -f cloned.txt ]]

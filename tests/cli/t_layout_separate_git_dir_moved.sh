# The work tree of a separate git dir (`git init --separate-git-dir`) moved by the user: berth's
# note of where it is (<common>/berth/work-tree) goes stale, and a command run from a workspace
# takes the git dir for the project. doctor there says so (work_tree_moved, naming the old place
# and how to repair; it used to say "all good"); `doctor --repair` run in the new place rewrites
# the note, after which doctor is clean from the workspace too and accept from the workspace
# lands in the new place.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/layout_helpers.sh"

mkdir "$T/store"
git init -q --separate-git-dir "$T/store/app.git" "$T/app"
cd "$T/app"
first_commit_here
ws=$(berth new w)
assert_eq "$(cat "$T/store/app.git/berth/work-tree")" "$T/app"

cd "$T"
mv "$T/app" "$T/moved"
cd "$ws"
report=$(not 1 berth --json doctor)
problem=$(jq -c '[.problems[] | select(.code == "work_tree_moved")][0]' <<<"$report")
assert_eq "$(jq -r .path <<<"$problem")" "$T/app"
assert_contains "$(jq -r .repair <<<"$problem")" "berth doctor --repair"
# --repair from here cannot know the new place: still reported.
not 1 berth doctor --repair >/dev/null

cd "$T/moved"
berth doctor --repair >/dev/null
assert_eq "$(cat "$T/store/app.git/berth/work-tree")" "$T/moved"
cd "$ws"
berth doctor >/dev/null
echo from-inside >"$ws/inside.txt"
berth accept w >/dev/null 2>&1
assert_eq "$(git -C "$T/moved" diff --cached --name-only)" inside.txt

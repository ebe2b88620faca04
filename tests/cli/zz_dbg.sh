. "$(dirname "$0")/common.sh"
make_repo app
berth fork t -n 2 >/dev/null
for i in 1 2; do (cd "$(berth path "t-$i")" && commit_file "a$i.c" "int a$i;"); done
git worktree add -q --force "$T/elsewhere" berth/t-2
berth --json discard t | jq -c '.[]? // .' | head -5
git branch -a
git worktree list

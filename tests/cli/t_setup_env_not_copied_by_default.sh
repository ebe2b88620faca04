# Ignored files hold secrets (.env) and stay out of a new workspace unless the project names them.
. "$(dirname "$0")/common.sh"
make_repo app
printf '.env\nbuild/\n' >.gitignore
git add .gitignore && git commit -qm ignore
echo SECRET=1 >.env
mkdir build && echo out >build/out.o
echo notes >untracked.txt

ws=$(berth new x 2>/dev/null)
[[ ! -e $ws/.env ]]
[[ ! -e $ws/build ]]
[[ ! -e $ws/untracked.txt ]]
json=$(berth --json new y 2>/dev/null)
assert_eq "$(jq -c .setup.copies <<<"$json")" "[]" "nothing copied"

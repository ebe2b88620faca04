# A relative core.hooksPath whose hooks are generated and ignored (husky: .husky/_) works in a
# new workspace: the user's pre-commit hook fires on `git commit` there.
. "$(dirname "$0")/common.sh"
make_repo app
mkdir -p .husky/_
# What husky 9 generates: an ignored .husky/_ whose hooks call the tracked .husky/<hook>.
echo '*' >.husky/_/.gitignore
cat >.husky/_/h <<'SH'
#!/bin/sh
n=$(basename "$0")
s=$(dirname "$(dirname "$0")")/$n
[ -f "$s" ] || exit 0
sh -e "$s" "$@"
SH
printf '#!/bin/sh\n. "$(dirname "$0")/h"\n' >.husky/_/pre-commit
chmod +x .husky/_/h .husky/_/pre-commit
printf 'echo "pre-commit in $PWD" >>"%s/hook.log"\n' "$T" >.husky/pre-commit
git add .husky/pre-commit && git commit -qm husky
git config core.hooksPath .husky/_
git commit -q --allow-empty -m "main checkout commit"
assert_eq "$(cat "$T/hook.log")" "pre-commit in $PWD"

ws=$(berth new x 2>/dev/null)
[[ -x $ws/.husky/_/pre-commit ]]
echo change >"$ws/change.txt"
git -C "$ws" add change.txt
git -C "$ws" commit -q -m "workspace commit"
assert_eq "$(tail -1 "$T/hook.log")" "pre-commit in $ws"
assert_eq "$(git -C "$ws" status --porcelain)" ""

# Its discard counts the hooks set-up copied as set-up's, not as build output that goes (the
# hooks folder is read from core.hooksPath, as the configuration says it now).
out=$(BERTH_POOL_SIZE=0 berth --json discard x)
assert_eq "$(jq -c '[.ignored_files, .setup_files]' <<<"$out")" "[0,3]"

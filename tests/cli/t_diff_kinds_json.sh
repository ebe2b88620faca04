# `berth diff --json` lists every kind of change the workspace made since its base: committed,
# staged, unstaged, untracked, deleted, renamed, mode change, symlink, binary; ignored files not.
. "$(dirname "$0")/common.sh"
make_repo app 3
printf '*.log\n' >.gitignore
printf 'old\0binary\n' >img.bin
git add .gitignore img.bin
git commit -q -m "ignore logs, add an image"
ws=$(berth new x)
cd "$ws"
echo committed >>README.md
git commit -q -am "edit readme"
echo staged >>src/main.c
git add src/main.c
echo unstaged >>files/0/f0.txt
mkdir notes && echo todo >notes/todo.txt
rm files/1/f1.txt
mv src/lib/util.c src/lib/helpers.c
chmod -x bin/run.sh
ln -sfn README.md GUIDE
ln -s src/main.c LINK
printf 'new\0binary\1\n' >img.bin
echo noise >debug.log
cd "$T/app"

json=$(berth --json diff x)
file() { jq -c --arg p "$1" '.files[] | select(.path == $p) | [.status, .old_path, .old_mode, .new_mode, .additions, .deletions, .binary]' <<<"$json"; }
assert_eq "$(file README.md)" '["M",null,"100644","100644",1,0,false]' README.md
assert_eq "$(file src/main.c)" '["M",null,"100644","100644",1,0,false]' src/main.c
assert_eq "$(file files/0/f0.txt)" '["M",null,"100644","100644",1,0,false]' f0.txt
assert_eq "$(file notes/todo.txt)" '["A",null,"","100644",1,0,false]' todo.txt
assert_eq "$(file files/1/f1.txt)" '["D",null,"100644","",0,1,false]' f1.txt
assert_eq "$(file src/lib/helpers.c)" '["R","src/lib/util.c","100644","100644",0,0,false]' helpers.c
assert_eq "$(file bin/run.sh)" '["M",null,"100755","100644",0,0,false]' run.sh
assert_eq "$(file GUIDE)" '["M",null,"120000","120000",1,1,false]' GUIDE
assert_eq "$(file LINK)" '["A",null,"","120000",1,0,false]' LINK
assert_eq "$(file img.bin)" '["M",null,"100644","100644",0,0,true]' img.bin
assert_eq "$(jq '.files | length' <<<"$json")" 10 "number of files"
assert_eq "$(jq -r '.from' <<<"$json")" "$(git rev-parse HEAD)" "diff base"
# The ignored file is not part of the change.
assert_not_contains "$(jq -r '.files[].path' <<<"$json")" debug.log

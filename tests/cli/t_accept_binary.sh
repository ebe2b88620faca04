# A binary file the workspace changed and one it added land byte for byte, with apply (staged) and
# with merge (committed).
. "$(dirname "$0")/common.sh"
make_repo app
head -c 4096 /dev/urandom >img.bin
git add img.bin && git commit -q -m image

ws=$(berth new a)
head -c 4096 /dev/urandom >"$ws/img.bin"
head -c 1000 /dev/urandom >"$ws/new.bin"
want=$(cd "$ws" && sha256sum img.bin new.bin)
berth accept a --strategy apply >/dev/null
assert_eq "$(sha256sum img.bin new.bin)" "$want" "applied files"
assert_eq "$(git show :img.bin | sha256sum | cut -d' ' -f1)" "$(sha256sum <img.bin | cut -d' ' -f1)" "staged img.bin"
assert_eq "$(git diff --name-only)" ""
git commit -q -m "take a"

ws=$(berth new b)
printf '\0\1\2\3\377' >"$ws/img.bin"
want=$(sha256sum <"$ws/img.bin")
berth accept b --strategy merge >/dev/null
assert_eq "$(sha256sum <img.bin)" "$want" "merged img.bin"
assert_eq "$(git show HEAD:img.bin | sha256sum)" "$want" "committed img.bin"
assert_eq "$(git status --porcelain --untracked-files=all)" ""

# A compare after the attempts changed diffs only the files changed since the last: the other
# files' line counts and patch sections are taken from the kept diffs from the same base (a file
# changed the same way, same modes, objects and paths, has the same section). What it shows must
# be exactly what a compare with no kept diff shows: the JSON, the text, the review page and the
# kept entries themselves, byte for byte, whatever the changes (renames, binary files, modes,
# links, a file become a link, names git quotes, two files changed the same way).
. "$(dirname "$0")/common.sh"
make_repo app 20
printf '\x00\x01bin' >blob.bin
printf 'same\n' >twin-a.txt && printf 'same\n' >twin-b.txt
printf 'x\n' >"tab	name.txt" && printf 'y\n' >"ünï.txt" && printf 'z\n' >'quote"d.txt'
ln -s README.md link
git add -A && git commit -qm "awkward files"
for i in 1 2 3; do berth new "try-$i" >/dev/null; done
ws1=$(berth path try-1) ws2=$(berth path try-2) ws3=$(berth path try-3)
# try-1: a rename, a binary change, an edit; try-2: two files changed the same way, a mode, a
# link retargeted, names git quotes; try-3: a new file, a deletion, a file become a link.
git -C "$ws1" mv -k files/1/f1.txt "files/1/re named.txt"
printf '\x00\x02bin' >"$ws1/blob.bin"
echo one >>"$ws1/README.md"
echo twin >>"$ws2/twin-a.txt" && echo twin >>"$ws2/twin-b.txt"
chmod +x "$ws2/src/main.c"
ln -sfn src/main.c "$ws2/link"
echo more >>"$ws2/tab	name.txt" && echo more >>"$ws2/ünï.txt" && echo more >>"$ws2/quote\"d.txt"
echo "shared" >>"$ws2/files/2/f2.txt"
echo three >"$ws3/new file.txt"
rm "$ws3/files/3/f3.txt"
rm "$ws3/files/4/f4.txt" && ln -s ../../README.md "$ws3/files/4/f4.txt"
echo "shared" >>"$ws3/files/2/f2.txt"
cache=$(git rev-parse --path-format=absolute --git-common-dir)/berth/diffs
git_calls() { grep 'trace: built-in: git' "$1" | sed 's/.*trace: built-in: //'; }

# Every diff kept in folder $1 is git's own of its pair, byte for byte (an entry: a header of four
# lines, an empty line, then what `diff-tree -r -z -M --raw --numstat -p` printed), and every
# attempt's files and counts in compare's JSON $2 are `berth diff`'s.
as_git_says() {
  local e name from to n=0
  for e in "$1"/*; do
    name=${e##*/}
    [[ $name == merge-* ]] && continue
    from=${name%-*} to=${name#*-}
    tail -n +6 "$e" >"$T/kept.body"
    git diff-tree -r -z -M --raw --numstat -p --binary --full-index --no-color \
      "$(git rev-parse "$from^{tree}")" "$to" >"$T/git.body"
    cmp "$T/kept.body" "$T/git.body"
    n=$((n + 1))
  done
  ((n >= 3)) || { echo "only $n kept diffs" >&2; return 1; }
  for name in try-1 try-2 try-3; do
    assert_eq "$(jq -c --arg n "$name" '.attempts[] | select(.name == $n) | .files' "$2")" \
      "$(berth --json diff "$name" --stat | jq -c '.files')"
  done
}
# What a compare shows, and keeps, with no kept diff at all.
fresh() {
  rm -rf "$cache"
  berth --json compare try | jq 'del(.attempts[].run)' >"$T/fresh.json"
  berth compare try >"$T/fresh.txt"
  berth compare try --html "$T/fresh.html" >/dev/null
  rm -rf "$T/fresh.cache" && cp -r "$cache" "$T/fresh.cache"
}
# The compare just made (`$1`: its name) shows and keeps exactly that.
same_as_fresh() {
  berth --json compare try | jq 'del(.attempts[].run)' >"$T/$1.json"
  berth compare try >"$T/$1.txt"
  berth compare try --html "$T/$1.html" >/dev/null
  rm -rf "$T/$1.cache" && cp -r "$cache" "$T/$1.cache"
  fresh
  as_git_says "$T/fresh.cache" "$T/fresh.json"
  assert_eq "$(cat "$T/$1.json")" "$(cat "$T/fresh.json")"
  assert_eq "$(cat "$T/$1.txt")" "$(cat "$T/fresh.txt")"
  cmp "$T/$1.html" "$T/fresh.html"
  # (the same entries for the pairs shown, byte for byte: every pair's and the merge previews')
  local e
  for e in "$T/fresh.cache"/*; do cmp "$e" "$T/$1.cache/${e##*/}"; done
}

berth compare try >/dev/null
# Each attempt changes one file more: only that file is diffed again (a pathspec naming it), and
# no file changed before is.
echo again >>"$ws1/src/main.c"
echo again >>"$ws2/README.md"
echo again >>"$ws3/new file.txt"
GIT_TRACE=$T/again.trace berth compare try >/dev/null
patch_call=$(git_calls "$T/again.trace" | grep -- '-p ' || true)
assert_eq "$(wc -l <<<"$patch_call")" 1
assert_contains "$patch_call" " -- ':(literal)README.md' ':(literal)new file.txt' ':(literal)src/main.c'"
assert_not_contains "$patch_call" "blob.bin"
same_as_fresh again

# Changes the kept ones cannot pair up as git would: a new rename (its two paths diffed), a file
# become a link, a link become a file, a deletion undone, a binary file changed again.
git -C "$ws1" mv -k files/5/f5.txt files/5/moved.txt
rm "$ws2/files/6/f6.txt" && ln -s ../../src "$ws2/files/6/f6.txt"
rm "$ws3/files/4/f4.txt" && echo "a file again" >"$ws3/files/4/f4.txt"
git -C "$ws3" checkout -q -- files/3/f3.txt
printf '\x00\x03bin' >"$ws1/blob.bin"
berth compare try >/dev/null
same_as_fresh turned

# An attempt whose every change is one another attempt made the same way: nothing is diffed
# but which files changed (no patch at all).
berth compare try >/dev/null
echo "shared" >>"$ws1/files/2/f2.txt"
GIT_TRACE=$T/shared.trace berth compare try >/dev/null
assert_eq "$(git_calls "$T/shared.trace" | grep -c -- '-p ' || true)" 0
same_as_fresh shared

# Damaged kept entries are not taken apart: every answer stays a fresh compare's.
echo yet >>"$ws2/README.md"
for e in "$cache"/*; do sed -i 's/^+more/+MORE/' "$e"; done
berth compare try >/dev/null
same_as_fresh damaged

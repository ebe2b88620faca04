# compare keeps each attempt's diff by (from, to) in <git-common-dir>/berth/diffs/, and its merge
# preview by the objects it was made of, so a compare of attempts nobody changed since the last
# runs no diff-tree and no merge-tree. The cache can never give a wrong
# answer: a damaged, swapped, emptied or planted entry is not used (and is written again), a
# change of git's configuration makes every entry miss, and a cache folder that cannot be made is
# no error. Each time, every attempt's files and counts are `berth diff`'s.
. "$(dirname "$0")/common.sh"
make_repo app 20
printf '\x00\x01bin' >blob.bin && git add blob.bin && git commit -qm binary
for i in 1 2 3; do berth new "try-$i" >/dev/null; done
ws1=$(berth path try-1) ws2=$(berth path try-2) ws3=$(berth path try-3)
git -C "$ws1" mv -k files/1/f1.txt "files/1/re named.txt"
printf '\x00\x02bin' >"$ws1/blob.bin"
echo one >>"$ws1/README.md"
echo "two, a longer line than ten bytes" >>"$ws2/src/main.c"
echo three >"$ws3/new file.txt"
cache=$(git rev-parse --path-format=absolute --git-common-dir)/berth/diffs

same_as_diff() { # each attempt's files and counts in compare are `berth diff`'s
  local doc=$1 name
  for name in try-1 try-2 try-3; do
    assert_eq "$(jq -c --arg n "$name" '.attempts[] | select(.name == $n) | .files' <<<"$doc")" \
      "$(berth --json diff "$name" --stat | jq -c '.files')"
  done
}
git_calls() { grep 'trace: built-in: git' "$1" | sed 's/.*trace: built-in: //'; }

# The first compare diffs and keeps; (as in t_compare_batched, the pool's filler may still be
# taking its first look at the newest workspaces during the second: counted at the third).
first=$(berth --json compare try)
same_as_diff "$first"
assert_eq "$(find "$cache" -type f | wc -l)" 3
berth --json compare try >/dev/null
doc=$(GIT_TRACE=$T/idle.trace berth --json compare try)
assert_eq "$doc" "$first"
# Nothing changed: where the project is (rev-parse), the target (worktree list: the branch checked
# out and its tip), git's excludes file (for the watcher's verdicts); nothing per attempt.
assert_not_contains "$(git_calls "$T/idle.trace")" "diff-tree"
count=$(git_calls "$T/idle.trace" | wc -l)
if ((count > 3)); then
  echo "an idle compare of 3 attempts ran $count git processes (want ≤ 3):" >&2
  git_calls "$T/idle.trace" >&2
  exit 1
fi
# The text and the review page are what they were too.
berth compare try >"$T/text.1"
berth compare try --html "$T/page.1.html" >/dev/null

# Damaged entries: cut short, one byte changed, swapped between pairs, emptied, a FIFO, garbage.
entries=("$cache"/*)
head -c 100 "${entries[0]}" >"$T/cut" && mv "$T/cut" "${entries[0]}"
sed -i 's/one/ONE/' "${entries[1]}" "${entries[2]}" # (one of them holds try-1's "one")
doc=$(berth --json compare try)
assert_eq "$doc" "$first"
cp "${entries[1]}" "$T/swap" && cp "${entries[2]}" "${entries[1]}" && mv "$T/swap" "${entries[2]}"
doc=$(berth --json compare try)
assert_eq "$doc" "$first"
: >"${entries[0]}"
rm -f "${entries[1]}" && mkfifo "${entries[1]}"
echo '{"garbage": true}' >"${entries[2]}"
doc=$(GIT_TRACE=$T/damaged.trace berth --json compare try)
assert_eq "$doc" "$first"
assert_contains "$(git_calls "$T/damaged.trace")" "diff-tree"
# ... and written again, whole: the next compare diffs nothing.
for e in "${entries[@]}"; do
  [[ -f $e && ! -p $e ]] || { echo "$e was not written again" >&2; exit 1; }
  assert_eq "$(head -1 "$e")" "berth-diff 1"
done
doc=$(GIT_TRACE=$T/again.trace berth --json compare try)
assert_eq "$doc" "$first"
assert_not_contains "$(git_calls "$T/again.trace")" "diff-tree"
assert_eq "$(berth compare try)" "$(cat "$T/text.1")"
berth compare try --html "$T/page.2.html" >/dev/null
cmp "$T/page.1.html" "$T/page.2.html"

# A change of git's configuration can change the diff of the same objects: files above
# core.bigFileThreshold are binary. Every kept entry misses; the numbers are the new ones.
git config core.bigFileThreshold 10
doc=$(berth --json compare try)
same_as_diff "$doc"
assert_eq "$(jq -r '.attempts[] | select(.name == "try-2") | .files[0].binary' <<<"$doc")" true
git config --unset core.bigFileThreshold
assert_eq "$(berth --json compare try)" "$first"

# No cache at all (its folder cannot be made): compare works as without one, every time.
rm -rf "$cache" && echo "not a folder" >"$cache"
doc=$(berth --json compare try)
assert_eq "$doc" "$first"
assert_eq "$(cat "$cache")" "not a folder"
rm -f "$cache"

# The target moves (a change to src/main.c, which try-2 changes too): each attempt's merge is
# previewed again (its commits, merge-tree) and kept with the diffs; the next compare asks git
# nothing per attempt and gives the same answers, the conflict included.
echo "int user(void);" >>src/main.c && git commit -qam "the target moves"
moved=$(berth --json compare try)
same_as_diff "$moved"
assert_eq "$(jq -r '[.attempts[].merges_cleanly] | join(" ")' <<<"$moved")" "true false true"
assert_eq "$(jq -r '.attempts[1].conflicts | join(" ")' <<<"$moved")" src/main.c
berth --json compare try >/dev/null
doc=$(GIT_TRACE=$T/moved.trace berth --json compare try)
assert_eq "$doc" "$moved"
assert_not_contains "$(git_calls "$T/moved.trace")" "merge-tree"
# (the project, the worktree list: the user's ignore file is remembered, shadow/core-paths)
assert_eq "$(git_calls "$T/moved.trace" | wc -l)" 2
# A damaged preview is not used either.
for e in "$cache"/merge-*; do echo "0 clean" >"$e"; done
assert_eq "$(berth --json compare try)" "$moved"

# Bounded: a full folder keeps the entries used last, within DiffCache::kMaxEntries (256).
mkdir -p "$cache"
for ((i = 0; i < 300; i++)); do
  printf 'berth-diff 1\n' >"$cache/$(printf '%040x' "$i")-$(printf '%040x' "$i")"
done
touch -d '2 days ago' "$cache"/*
echo four >>"$ws3/new file.txt" # a new pair: something is written, then the folder pruned
doc=$(berth --json compare try)
same_as_diff "$doc"
assert_eq "$(find "$cache" -type f | wc -l)" 256
# (the entries this compare used are the newest: kept)
assert_eq "$(berth --json compare try)" "$doc"

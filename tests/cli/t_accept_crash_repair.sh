# kill -9 of `berth accept --strategy ff` while it writes into the user's checkout (slowed down by
# a smudge filter): later commands warn about the interrupted accept, `berth doctor` reports it
# (exit 1), and `berth doctor --repair` finishes it: HEAD at the new commit, every changed file
# at its new content, the checkout clean apart from the user's own edits, which stay
# byte-identical.
. "$(dirname "$0")/common.sh"
make_twenty_files_repo slow
old=$(git rev-parse HEAD)
ws=$(berth new x)
cd "$ws"
rewrite_twenty .
git commit -qam "rewrite twenty files"
new=$(git rev-parse HEAD)
cd "$T/app"
other=$(berth new other)
echo other >"$other/docs/guide.md"
# Writing a .txt file into the checkout now takes a while.
git config filter.slow.smudge "sh -c 'sleep 0.1; cat'"
# The user's own uncommitted work, outside the change: unstaged, staged, untracked.
echo "user edit" >>README.md
echo "user staged" >>src/main.c && git add src/main.c
echo "user scratch" >scratch.md
user_sums=$(sha256sum README.md src/main.c scratch.md)
user_staged=$(git rev-parse :src/main.c)

. "$(dirname "$0")/crash_helpers.sh"
# It really was caught mid-way: some files new, some old, HEAD unmoved, the record there.
crash_accept_midway x --strategy ff
assert_eq "$(git rev-parse HEAD)" "$old" "HEAD after the crash"
[[ -e $intent ]]

# Every later command says so.
berth list >/dev/null 2>"$T/err"
assert_contains "$(cat "$T/err")" "interrupted"
assert_contains "$(cat "$T/err")" "berth doctor --repair"
out=$(not 1 berth doctor)
assert_contains "$out" "interrupted accept of 'x' into main"
assert_eq "$(not 1 berth --json doctor | jq -r '.problems[0] | [.code, .name, .message] | join("|")')" \
  "interrupted_accept|x|interrupted accept of 'x' into main (20 file(s))"
# No other accept into that branch until it is repaired.
before=$(fingerprint)
out=$(expect_error interrupted 1 berth --json accept other --strategy merge)
assert_contains "$(jq -r .error.hint <<<"$out")" "berth doctor --repair"
assert_unchanged "$before"

berth doctor --repair >"$T/repair.out" 2>/dev/null
assert_contains "$(cat "$T/repair.out")" "finished"
assert_eq "$(git rev-parse HEAD)" "$new" "HEAD after repair"
assert_eq "$(git symbolic-ref --short HEAD)" main
for i in $(seq 1 20); do assert_eq "$(cat "c/f$i.txt")" "new $i" "c/f$i.txt"; done
assert_eq "$(sha256sum README.md src/main.c scratch.md)" "$user_sums" "the user's files"
assert_eq "$(git rev-parse :src/main.c)" "$user_staged" "the user's staged file"
assert_eq "$(git status --porcelain --untracked-files=all)" "$(printf ' M README.md\nM  src/main.c\n?? scratch.md')"
[[ ! -e $intent && ! -e .git/index.lock ]]

# All settled: no more warnings, doctor content.
berth list >/dev/null 2>"$T/err"
assert_eq "$(cat "$T/err")" "" "stderr after repair"
berth doctor >/dev/null

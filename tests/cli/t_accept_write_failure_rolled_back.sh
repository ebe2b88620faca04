# Writing into the checkout fails half-way (a required smudge filter fails on one file, after
# git has written others). The files already written are put back at once: nothing changed, no
# intent left, doctor content. When even putting back fails, the intent record stays: `berth
# doctor` reports the interrupted accept (it never says all good over half-written files), and
# `doctor --repair` settles it once the cause is gone.
. "$(dirname "$0")/common.sh"
make_twenty_files_repo flaky
ws=$(berth new x)
rewrite_twenty "$ws"
git -C "$ws" commit -qam "rewrite"
git config filter.flaky.clean cat
git config filter.flaky.required true
intent_dir=$(git rev-parse --path-format=absolute --git-common-dir)/berth/intents

# 1. Only the new content of c/f15.txt cannot be written: the rest is put back.
cat >"$T/smudge" <<'SH'
#!/bin/sh
content=$(cat)
[ "$content" = "new 15" ] && exit 1
printf '%s\n' "$content"
SH
chmod +x "$T/smudge"
git config filter.flaky.smudge "$T/smudge"
before=$(fingerprint)
ws_before=$(fingerprint "$ws")
out=$(expect_error git_failed 1 berth --json accept x --strategy squash)
assert_contains "$(jq -r .error.message <<<"$out")" "nothing was changed"
assert_unchanged "$before"
assert_unchanged "$ws_before" "$ws"
assert_eq "$(find "$intent_dir" -name '*.json' 2>/dev/null | wc -l)" 0 "intent records"
berth doctor >/dev/null

# 2. c/f15.txt cannot be written at all, not even its old content: the intent stays.
cat >"$T/smudge" <<'SH'
#!/bin/sh
content=$(cat)
case "$content" in *" 15") exit 1 ;; esac
printf '%s\n' "$content"
SH
out=$(expect_error interrupted 1 berth --json accept x --strategy squash)
assert_contains "$(jq -r .error.hint <<<"$out")" "berth doctor --repair"
assert_eq "$(find "$intent_dir" -name '*.json' | wc -l)" 1 "intent records"
out=$(not 1 berth doctor)
assert_contains "$out" "interrupted accept of 'x' into main"
old=$(git rev-parse HEAD)

# The filter is fixed: repair finishes the accept, consistently.
git config filter.flaky.smudge cat
berth doctor --repair >/dev/null 2>&1
[[ $(git rev-parse HEAD) != "$old" ]]
for i in $(seq 1 20); do assert_eq "$(cat "c/f$i.txt")" "new $i" "c/f$i.txt"; done
assert_eq "$(git status --porcelain --untracked-files=all)" ""
assert_eq "$(find "$intent_dir" -name '*.json' | wc -l)" 0 "intent records after repair"
berth doctor >/dev/null

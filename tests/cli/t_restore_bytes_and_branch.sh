# Restore gives back the bytes that were on disk, whatever the content filters and end-of-line
# rules say (untracked files bypass them; tracked files round-trip through them as git does),
# and a workspace on a branch of its own is restored on that branch with its commits.
. "$(dirname "$0")/common.sh"
make_repo app
# rot13 both ways: a clean/smudge pair that changes the bytes.
cat >"$T/rot13" <<'SH'
#!/bin/sh
tr 'A-Za-z' 'N-ZA-Mn-za-m'
SH
chmod +x "$T/rot13"
git config filter.rot.clean "$T/rot13"
git config filter.rot.smudge "$T/rot13"
printf '*.txt text eol=crlf\n*.rot filter=rot\n' >.gitattributes
printf 'line one\r\nline two\r\n' >tracked.txt
printf 'Hello secret\n' >tracked.rot
git add -A && git commit -qm 'attributes'
ws=$(berth new t)
cd "$ws"
git checkout -q -b feature
commit_file feature.c 'int feature;' 'on feature'
feature_head=$(git rev-parse HEAD)
printf 'line one\r\nline 2\r\n' >tracked.txt # tracked, modified (CRLF, as checked out)
printf 'Hello changed\n' >tracked.rot        # tracked, modified, through the filter
printf 'lf only\n' >untracked.txt            # untracked: LF must stay LF
printf 'mixed\r\nlf\n' >mixed.txt            # untracked: mixed endings stay mixed
printf 'Plain words\n' >untracked.rot        # untracked: not smudged on the way back
files=$(tree_digest "$ws")
status=$(git status --porcelain=v2 --branch --untracked-files=all)
cd "$T/app"

berth discard t >/dev/null 2>&1
berth restore t >/dev/null 2>"$TMPDIR/restore.err" || { cat "$TMPDIR/restore.err" >&2; false; }
cd "$ws"
assert_eq "$(od -c untracked.txt | head -1)" "$(printf 'lf only\n' | od -c | head -1)" "untracked LF"
assert_eq "$(cat untracked.rot)" 'Plain words' "untracked, filter not applied"
assert_eq "$(tree_digest "$ws")" "$files" "every file byte for byte"
assert_eq "$(git symbolic-ref HEAD)" refs/heads/feature "restored on its own branch"
assert_eq "$(git rev-parse HEAD)" "$feature_head" "with its commits"
assert_eq "$(git status --porcelain=v2 --branch --untracked-files=all)" "$status" "status"
assert_eq "$(git rev-parse berth/t)" "$(git -C "$T/app" rev-parse main)" "berth's branch where it was"

# A workspace's `.git` file replaced behind berth's back: pointed at the user's repository (a git
# run there, unsandboxed, would commit to the user's branch), or replaced by a FIFO. doctor reports
# `gitfile_mismatch` for that workspace alone, `--repair` writes the file back, and git in the
# workspace works on its own branch again; the user's repository is untouched.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new x)
berth new y >/dev/null
echo work >"$ws/w.txt"
before=$(fingerprint)
for planted in redirect fifo; do
  rm "$ws/.git"
  if [[ $planted == redirect ]]; then
    echo "gitdir: $T/app/.git" >"$ws/.git"
  else
    mkfifo "$ws/.git"
  fi
  out=$(not 1 json_logged timeout 20 "$BERTH_BIN" --json doctor)
  assert_eq "$(jq -r '[.problems[] | "\(.code) \(.name)"] | join(",")' <<<"$out")" "gitfile_mismatch x" "$planted"
  assert_eq "$(jq -r '.problems[0].path' <<<"$out")" "$ws/.git"
  timeout 20 "$BERTH_BIN" doctor --repair >/dev/null
  assert_eq "$(berth doctor)" "all good"
  [[ -f $ws/.git ]]
  assert_eq "$(git -C "$ws" rev-parse --abbrev-ref HEAD)" berth/x "$planted"
  assert_eq "$(cat "$ws/w.txt")" work
  assert_unchanged "$before"
done

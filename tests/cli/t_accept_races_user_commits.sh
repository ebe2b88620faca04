# The user commits in a loop in their checkout while `berth accept` (squash, merge, rebase) lands
# one workspace after another. Accept holds git's own locks on HEAD and the branch while it writes, so
# no user commit ever sweeps an agent's file into itself (their `git commit` fails to lock HEAD
# instead: a git error, nothing lost); every accept either lands fully or changes nothing (exit 3,
# conflict); no intent record is left behind; the checkout holds nothing unexpected.
. "$(dirname "$0")/common.sh"
make_repo app
mkdir -p u
git config core.hooksPath /dev/null

# The user's loop: a new file, staged and committed, over and over (a commit that loses the race
# for HEAD's lock fails; its file stays staged and goes into the next one).
(
  i=0
  while [[ ! -e $T/stop ]]; do
    i=$((i + 1))
    echo "$i" >"u/$i.txt"
    git add "u/$i.txt" 2>/dev/null || true
    git commit -q -m "user $i" >/dev/null 2>&1 || true
    sleep 0.1
  done
) &
loop=$!

intent_dir=$(git rev-parse --path-format=absolute --git-common-dir)/berth/intents
landed=0 lost=0
for n in $(seq 1 6); do
  ws=$(berth new "w$n")
  mkdir -p "$ws/agent$n"
  for k in 1 2 3 4 5 6; do echo "agent $n $k" >"$ws/agent$n/f$k.txt"; done
  status=0
  strategies=(squash merge rebase)
  berth --json accept "w$n" --strategy "${strategies[n % 3]}" >"$T/out" 2>"$T/err" || status=$?
  ((status == 0 || status == 3)) || { cat "$T/out" "$T/err" >&2; false; }
  if ((status == 0)); then
    landed=$((landed + 1))
    # Landed fully: every file on the branch (the squash commit or later), the same on disk.
    for k in 1 2 3 4 5 6; do
      assert_eq "$(git show "HEAD:agent$n/f$k.txt" 2>/dev/null || git show "$(jq -r .new_commit "$T/out"):agent$n/f$k.txt")" "agent $n $k"
    done
  else
    assert_eq "$status" 3 "exit status of a lost race"
    assert_eq "$(jq -r .error.code "$T/out")" conflict
    lost=$((lost + 1))
    # Changed nothing: no agent file on disk, in the index or on the branch.
    [[ ! -e agent$n ]]
    assert_eq "$(git ls-files "agent$n" | wc -l)" 0 "agent$n in the index"
    assert_eq "$(git log --format=%H -- "agent$n" | wc -l)" 0 "agent$n in history"
    berth discard "w$n" --force >/dev/null 2>&1 || true
  fi
  assert_eq "$(find "$intent_dir" -name '*.json' 2>/dev/null | wc -l)" 0 "intent records left"
  # Nothing of any agent's staged or modified in the checkout: landed means committed.
  assert_eq "$(GIT_OPTIONAL_LOCKS=0 git status --porcelain --untracked-files=all | grep -c ' agent' || true)" 0 \
    "agent files in git status"
done
touch "$T/stop"
wait "$loop"

# No commit of the user's contains an agent file.
while read -r c; do
  assert_eq "$(git diff-tree --no-commit-id --name-only -r "$c" | grep -c '^agent' || true)" 0 \
    "agent files in the user's commit $(git log -1 --format=%s "$c")"
done < <(git log --format=%H --grep='^user ')
# Every commit berth made holds agent files only.
while read -r c; do
  assert_eq "$(git diff-tree --no-commit-id --name-only -r "$c" | grep -vc '^agent' || true)" 0 \
    "user files in berth's commit $(git log -1 --format=%s "$c")"
done < <(git log --format=%H --invert-grep --grep='^user ' --grep='^first commit')
# The checkout: at most the user's own last file staged, nothing of the agents'.
unexpected=$(git status --porcelain --untracked-files=all | grep -v -e '^A  u/' -e '^?? u/' || true)
assert_eq "$unexpected" "" "unexpected entries in git status"
git fsck --no-dangling --no-progress >/dev/null
berth doctor >/dev/null
echo "landed $landed, lost $lost" >&2

# `berth gc` finds a workspace landed every way its change can reach the target, each with its
# reason: HEAD is the target's tip; HEAD is an ancestor (merged, the target moved on); the target
# has the same files; every commit cherry-picked (other patch-ids around); a squash merge made on a
# "forge" (another clone, pushed) and only fetched here, the target's upstream ahead of it, with
# another change merged there before it (also with no upstream set: the remote's branch of that
# name). A change close to a landed one but not the same stays.
# The dry run's text is the real run's, line for line ("would remove" for "removed"). --into a
# branch that is not there is an error; the main checkout on no branch, a warning.
. "$(dirname "$0")/common.sh"

# The forge: a bare repository; the user's clone in $T/app, another clone for the forge's merges.
git init -q --bare "$T/forge.git"
git clone -q "$T/forge.git" "$T/app" 2>/dev/null
cd "$T/app"
commit_file README.md '# app' 'first commit'
git push -q origin main

ancestor=$(berth new ancestor)
(cd "$ancestor" && commit_file a.txt ancestor)
git merge -q --no-ff -m "merge ancestor" berth/ancestor
picked=$(berth new picked)
(cd "$picked" && commit_file p1.txt one && commit_file p2.txt two)
commit_file between.txt between
GIT_COMMITTER_DATE="2001-02-03T04:05:06" git cherry-pick berth/picked~1 berth/picked >/dev/null
close=$(berth new close)
(cd "$close" && commit_file p1.txt 'one, but not the same')
git push -q origin main

# On the forge: another change merged first, then the workspace's branch squash-merged.
forge=$(berth new forge)
(cd "$forge" && commit_file f1.txt one && commit_file f2.txt two &&
  git push -q origin HEAD:refs/heads/feature)
git clone -q "$T/forge.git" "$T/elsewhere" 2>/dev/null
(cd "$T/elsewhere" && commit_file other.txt 'another change' && git fetch -q origin feature &&
  git merge -q --squash origin/feature >/dev/null 2>&1 && git commit -q -m "Feature (#2)" &&
  git push -q origin main)
git fetch -q origin
[[ $(git rev-list --count main..origin/main) == 2 ]] # fetched, not pulled
tip=$(berth new tip)
(cd "$tip" && commit_file t.txt tip)
git merge -q --ff-only berth/tip

reason() { jq -r --arg n "$1" '.removed[] | select(.name == $n) | "\(.category): \(.reason)"' <<<"$2"; }
before=$(fingerprint)
dry=$(berth --json gc --dry-run)
text=$(berth gc --dry-run)
assert_unchanged "$before"
assert_eq "$(reason tip "$dry")" "landed: its HEAD is main's tip"
assert_eq "$(reason ancestor "$dry")" "landed: its commits are in main"
assert_eq "$(reason picked "$dry")" \
  "landed: each of its 2 commit(s) has its change in main (same patch-id)"
assert_eq "$(reason forge "$dry")" \
  "landed: its whole change is one commit of origin/main (squashed; same patch-id)"
assert_eq "$(reason close "$dry")" "" "a different change"
assert_eq "$(jq '.removed | length' <<<"$dry")" 4

real=$(berth gc)
assert_eq "$real" "$(sed 's/^would remove /removed /' <<<"$text")" "the real run's text"
assert_eq "$(berth --json list | jq -r '[.[].name] | join(" ")')" "close"
# Each in the trash with its commits.
ws=$(berth restore forge)
assert_eq "$(cat "$ws/f2.txt")" two

# The same files: the user committed the same content themselves (another commit, the change in
# two steps in the workspace: neither patch-id is main's).
same=$(berth new same-files)
(cd "$same" && commit_file s.txt draft "a draft" && commit_file s.txt same "the workspace's change")
commit_file s.txt same "the user's own commit, same content"
assert_eq "$(reason same-files "$(berth --json gc --dry-run)")" "landed: main has the same files"

# No upstream set (pushed without -u): the branch of the same name on the remote counts as well.
git branch -q --unset-upstream main
forge2=$(berth new forge2)
(cd "$forge2" && commit_file g1.txt one && commit_file g2.txt two &&
  git push -q origin HEAD:refs/heads/feature2)
(cd "$T/elsewhere" && git pull -q --no-rebase origin main 2>/dev/null && commit_file other2.txt more &&
  git fetch -q origin feature2 && git merge -q --squash origin/feature2 >/dev/null 2>&1 &&
  git commit -q -m "Feature 2 (#3)" && git push -q origin main)
git fetch -q origin
assert_eq "$(reason forge2 "$(berth --json gc --dry-run)")" \
  "landed: its whole change is one commit of origin/main (squashed; same patch-id)"

# --into a branch that is not there: an error, nothing changed (not "nothing landed", silently).
before=$(fingerprint)
out=$(expect_error invalid_revision 4 berth --json gc --into nosuch)
assert_contains "$(jq -r .error.message <<<"$out")" "no branch named 'nosuch'"
assert_unchanged "$before"
# The main checkout on no branch: nothing is found landed, and gc says why.
git checkout -q --detach
not 0 berth gc --dry-run >/dev/null
assert_contains "$(last_stderr)" "landed workspaces not looked for"
assert_eq "$(reason forge2 "$(berth --json gc --dry-run --into main)")" \
  "landed: its whole change is one commit of origin/main (squashed; same patch-id)"
git checkout -q main

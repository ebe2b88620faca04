#!/usr/bin/env bash
# A sandboxed command cannot move another branch (`git update-ref refs/heads/main`), create or
# delete refs, or rewrite packed-refs; it can commit on its own detached HEAD.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

attempt() {
  local before
  git pack-refs --all
  git branch feature
  before=$(fingerprint)
  # A commit object of its own (it may write objects: they go to its quarantine).
  local evil='c=$(git commit-tree -m evil "HEAD^{tree}") &&'
  escape "$evil"' git update-ref refs/heads/main "$c"'
  escape "$evil"' git update-ref refs/heads/feature "$c"'
  escape "$evil"' git branch -f main "$c"'
  escape 'git update-ref -d refs/heads/feature'
  escape 'git tag evil'
  escape "$evil"' git update-ref refs/heads/berth/agent "$c"'
  escape 'git -C "$BERTH_PROJECT" commit -q --allow-empty -m evil'
  escape "$evil"' echo "$c refs/heads/main" >>"$(git rev-parse --git-common-dir)/packed-refs"'
  escape "$evil"' echo "$c" >"$(git rev-parse --git-common-dir)/refs/heads/main"'
  escape "$evil"' echo "$c" >"$(git rev-parse --git-common-dir)/refs/heads/new-branch"'
  escape "$evil"' echo "$c" >"$(git rev-parse --git-common-dir)/ORIG_HEAD"'
  assert_unchanged "$before"
  git fsck --no-progress --no-dangling
}
escape_matrix attempt

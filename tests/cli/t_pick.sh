#!/usr/bin/env bash
# pick lands one attempt and sends its siblings to the trash (restorable), then drops the fork's
# record; a conflict, a missing name and a workspace that is no attempt change nothing.
. "$(dirname "$0")/common.sh"
make_repo app
forks=$(git rev-parse --path-format=absolute --git-common-dir)/berth/forks
berth fork ans -n 3 -- sh -c 'echo "$BERTH_ATTEMPT" >answer.txt && git add answer.txt && git commit -qm "attempt $BERTH_ATTEMPT"' >/dev/null

before=$(fingerprint)
expect_error not_found 4 berth --json pick ans-9 >/dev/null
berth new lone >/dev/null
before=$(fingerprint)
expect_error usage 2 berth --json pick lone >/dev/null
assert_unchanged "$before"
# The fork's task rather than an attempt: the attempts are named, nothing changes.
not 2 berth pick ans >/dev/null
err=$(last_stderr)
assert_contains "$err" "'ans' is a fork; pick one of its attempts: ans-1, ans-2, ans-3"
assert_contains "$err" "berth compare ans"
assert_unchanged "$before"

out=$(berth --json pick ans-2 --strategy squash)
assert_eq "$(git show HEAD:answer.txt)" 2
assert_eq "$(jq -r '[.discarded[].workspace.name] | join(",")' <<<"$out")" "ans-1,ans-3"
# (Each held a commit of its own: work the trash saved.)
assert_eq "$(jq -r '[.discarded[].unsaved_work] | join(",")' <<<"$out")" "true,true"
assert_eq "$(jq -r '.fork_removed' <<<"$out")" true
assert_eq "$(berth --json list | jq '[.[] | select(.fork == "ans")] | length')" 0
test ! -e "$forks/ans"
berth restore ans-3 >/dev/null
assert_eq "$(git -C "$(berth path ans-3)" show HEAD:answer.txt)" 3

# A conflict: the target moved under the attempts; nothing changes, the siblings stay.
berth fork clash -n 2 -- sh -c 'echo "$BERTH_ATTEMPT" >clash.txt && git add clash.txt && git commit -qm "clash $BERTH_ATTEMPT"' >/dev/null
commit_file clash.txt main
before=$(fingerprint)
out=$(not 3 berth --json pick clash-1 --strategy merge)
assert_eq "$(jq -r '.accepted.conflicts[0]' <<<"$out")" clash.txt
assert_eq "$(jq -r '.kept | join(",")' <<<"$out")" clash-2
assert_unchanged "$before"
# In text (even --quiet): the conflicting paths, and that the siblings stay.
out=$(not 3 berth -q pick clash-1 --strategy merge 2>/dev/null)
assert_contains "$out" "Conflicting:"
assert_contains "$out" "  clash.txt"
assert_contains "$out" "sibling attempts stay"
assert_unchanged "$before"

# Attempts discarded one by one (no pick) leave a stale record: gc names it, and a fork of the
# same TASK replaces it rather than refusing the name.
berth fork again -n 2 >/dev/null
berth discard again-1 >/dev/null
berth discard again-2 >/dev/null
test -e "$(git rev-parse --git-common-dir)/berth/forks/again/fork.json"
dry=$(berth --json gc --dry-run)
assert_eq "$(jq -r '.removed[] | select(.kind == "fork") | "\(.category) \(.name)"' <<<"$dry")" "orphan again"
out=$(berth --json fork again -n 1)
assert_eq "$(jq -r '.fork.attempts' <<<"$out")" 1 "a new fork of the stale task"
berth discard again-1 >/dev/null
berth --json gc >/dev/null
not 1 test -e "$(git rev-parse --git-common-dir)/berth/forks/again"

#!/usr/bin/env bash
# A fork's record lives in a folder named by the task's slug, so `a/b` and `a-b` share it. A
# fork or discard of `a-b` never removes or replaces the record (and logs) of fork `a/b`:
# refused (name_taken / not_found) with nothing changed; `discard a/b` still finds its fork.
. "$(dirname "$0")/common.sh"
make_repo app
forks=$(git rev-parse --path-format=absolute --git-common-dir)/berth/forks
berth fork a/b -n 2 -- sh -c 'echo "log of $BERTH_ATTEMPT"' >/dev/null 2>&1
record=$(cat "$forks/a-b/fork.json")

before=$(fingerprint)
expect_error name_taken 1 berth --json fork a-b -n 2 >/dev/null
expect_error not_found 4 berth --json discard a-b >/dev/null
assert_unchanged "$before"
assert_eq "$(cat "$forks/a-b/fork.json")" "$record"
assert_eq "$(cat "$forks/a-b/attempt-2.log")" "log of 2"

# With one attempt of a/b left, a fork a-b whose attempt names are free still may not replace
# a/b's record.
berth discard a/b-1 >/dev/null
before=$(fingerprint)
expect_error name_taken 1 berth --json fork a-b -n 1 >/dev/null
assert_unchanged "$before"
assert_eq "$(jq -r .task "$forks/a-b/fork.json")" a/b

out=$(berth --json discard a/b)
assert_eq "$(jq -r '[.discarded[].workspace.name] | join(",")' <<<"$out")" "a/b-2"
test ! -e "$forks/a-b"
# Once a/b is gone, a-b is free.
berth fork a-b -n 1 >/dev/null
assert_eq "$(jq -r .task "$forks/a-b/fork.json")" a-b

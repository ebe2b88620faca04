#!/usr/bin/env bash
# fork: N attempts from one base, each marked in its record and in `list`; with a command, each
# runs it with BERTH_ATTEMPT/ATTEMPTS/FORK, its output in its log, its end in fork.json; one
# failing attempt makes the fork exit 1 with every attempt still listed. Bad input changes nothing.
. "$(dirname "$0")/common.sh"
make_repo app
forks=$(git rev-parse --path-format=absolute --git-common-dir)/berth/forks

# Without a command: only the workspaces.
out=$(berth --json fork plain -n 3)
assert_eq "$(jq -r '[.workspaces[].name] | join(" ")' <<<"$out")" "plain-1 plain-2 plain-3"
assert_eq "$(jq -r '[.workspaces[].base] | unique | length' <<<"$out")" 1 "one base"
assert_eq "$(jq -r '.fork.base' <<<"$out")" "$(git rev-parse HEAD)"
assert_eq "$(jq -r '.fork.runs | length' <<<"$out")" 0
test -f "$forks/plain/fork.json"
list=$(berth --json list)
assert_eq "$(jq -r '[.[] | select(.fork == "plain") | .attempt] | join(",")' <<<"$list")" "1,2,3"
assert_eq "$(git rev-parse berth/plain-2)" "$(git rev-parse HEAD)"
assert_contains "$(berth list)" "plain (fork)"

# With a command, two at a time; attempt 2 fails, attempt 4 is killed by a signal.
out=$(not 1 berth --json fork job -n 4 -j 2 -- sh -c \
  'echo "attempt $BERTH_ATTEMPT of $BERTH_ATTEMPTS in $BERTH_FORK"; echo "$BERTH_ATTEMPT" >mine.txt; [ "$BERTH_ATTEMPT" != 4 ] || kill -TERM $$; [ "$BERTH_ATTEMPT" != 2 ]')
jq -e '.fork.command == ["sh", "-c", .fork.command[2]]' <<<"$out" >/dev/null
assert_eq "$(jq -r '[.fork.runs[] | "\(.name):\(.state):\(.exit_code):\(.signal)"] | join(" ")' <<<"$out")" \
  "job-1:exited:0:null job-2:exited:1:null job-3:exited:0:null job-4:signalled:null:15"
record=$(cat "$forks/job/fork.json")
assert_eq "$(jq -r '[.runs[] | .exit_code // "-"] | join(",")' <<<"$record")" "0,1,0,-" "fork.json"
assert_eq "$(jq -r '.runs[3].signal' <<<"$record")" 15 "fork.json: the signal"
jq -e '[.runs[] | .duration_ms > 0 and .started_ms > 0] | all' <<<"$record" >/dev/null
for i in 1 2 3 4; do
  assert_eq "$(cat "$forks/job/attempt-$i.log")" "attempt $i of 4 in job"
  assert_eq "$(cat "$(jq -r ".workspaces[$((i - 1))].path" <<<"$out")/mine.txt")" "$i"
done

# Bad input: one line with a code, nothing made.
before=$(fingerprint)
expect_error usage 2 berth --json fork bad -n 0 >/dev/null
expect_error usage 2 berth --json fork bad -n 65 >/dev/null
expect_error invalid_name 2 berth --json fork 'bad..name' -n 2 >/dev/null
expect_error invalid_revision 4 berth --json fork bad -n 2 --base no-such-rev >/dev/null
assert_unchanged "$before"
berth new taken-2 >/dev/null
before=$(fingerprint)
expect_error name_taken 1 berth --json fork taken -n 3 >/dev/null
expect_error name_taken 1 berth --json fork plain -n 1 >/dev/null
expect_error usage 2 berth --json fork bad -n 2 --timeout 5 >/dev/null
assert_unchanged "$before"

# Attempt 2 cannot be made (a stray folder holds its place): attempt 1 is taken back, no record.
root=$(dirname "$(berth path plain-1)")
mkdir "$root/roll-2" && echo stray >"$root/roll-2/file"
# Taking an attempt back is a discard: one first, so that the folders a discard makes exist.
berth new warm >/dev/null && berth discard --no-trash warm >/dev/null
before=$(fingerprint)
out=$(not 1 berth --json fork roll -n 3)
assert_eq "$(jq -r .error.code <<<"$out")" name_taken
assert_unchanged "$before"
test ! -e "$forks/roll"

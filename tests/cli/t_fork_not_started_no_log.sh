#!/usr/bin/env bash
# fork: an attempt a timeout kept from starting is shown as not_started, without a time or a log
# path (it has no log file); the attempts that ran keep theirs.
. "$(dirname "$0")/common.sh"
make_repo app
not 1 berth fork slow -n 3 -j 1 --timeout 1 -- sleep 30 >/dev/null
out=$(cat "$TMPDIR/not.out")
forks=$(git rev-parse --path-format=absolute --git-common-dir)/berth/forks
assert_contains "$(grep 'slow-1 ' <<<"$out")" "log: $forks/slow/attempt-1.log"
test -f "$forks/slow/attempt-1.log"
for i in 2 3; do
  line=$(grep "slow-$i " <<<"$out")
  assert_contains "$line" "not_started"
  if grep -q "log:" <<<"$line"; then
    echo "attempt $i never started, yet its line names a log: $line" >&2
    exit 1
  fi
  test ! -e "$forks/slow/attempt-$i.log"
done

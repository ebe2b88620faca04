#!/usr/bin/env bash
# fork -- CMD makes, as each attempt's command ends, what the compare after it looks at (the
# capture, the diff and the merge preview, kept): that first compare diffs nothing and captures
# nothing, and says exactly what a compare without them says.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app 20
# The attempts from a warm pool, watched from their birth (docs/decisions/0011), as a user's are.
export BERTH_POOL_SIZE=3
berth pool fill >/dev/null
berth fork try -n 3 -- sh -c 'echo "attempt $BERTH_ATTEMPT" >>README.md
  echo new >"new-$BERTH_ATTEMPT.txt"; [ "$BERTH_ATTEMPT" != 2 ] || git commit -qam two' \
  >/dev/null 2>&1
# The pool refills behind the fork, priming each new slot's shadow: settled before the kept
# captures are removed below.
wait_for_fillers
git_calls() { grep 'trace: built-in: git' "$1" | sed 's/.*trace: built-in: //'; }
doc=$(GIT_TRACE=$T/first.trace berth --json compare try)
calls=$(git_calls "$T/first.trace")
for made in diff-tree merge-tree update-index hash-object; do
  if grep -q "^git $made" <<<"$calls"; then
    echo "the first compare after the fork ran git $made:" >&2
    echo "$calls" >&2
    exit 1
  fi
done
assert_eq "$(jq -c '[.attempts[] | [.name, .files_changed, .commits, .uncommitted]]' <<<"$doc")" \
  '[["try-1",2,0,true],["try-2",2,1,true],["try-3",2,0,true]]'
# The same as a compare that made everything afresh (the kept diffs and captures gone).
berth_dir=$(git rev-parse --path-format=absolute --git-common-dir)/berth
rm -rf "$berth_dir/diffs" "$berth_dir/shadow"
assert_eq "$(berth --json compare try)" "$doc" "compare made afresh"

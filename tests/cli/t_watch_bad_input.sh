# `berth watch` refuses what it does not know with a clear error, outside a repository too, and
# changes nothing; the hook git runs fails (git then looks at everything) rather than answer
# without a project, and answers only protocol version 2.
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new w)
echo edit >>"$ws/README.md"
berth list >/dev/null
before=$(fingerprint)

expect_error usage 2 berth --json watch restart >/dev/null
expect_error usage 2 berth --json watch status now >/dev/null
(cd "$T" && expect_error not_a_repository 1 berth --json watch status >/dev/null)
assert_unchanged "$before"

# The hook: no project named, or another protocol version: a plain failure, nothing printed.
out=$(cd "$ws" && env -u BERTH_WATCH_DIR "$BERTH_BIN" watch hook 2 token) && exit 1
assert_eq "$out" ""
out=$(cd "$ws" && BERTH_WATCH_DIR="$(git rev-parse --git-common-dir)" "$BERTH_BIN" watch hook 1 0) &&
  exit 1
assert_eq "$out" ""
# With the project named, it answers git's way: a token, then paths (here "/" for a new token).
cd "$ws"
common=$(git rev-parse --path-format=absolute --git-common-dir)
answer=$(BERTH_WATCH_DIR=$common "$BERTH_BIN" watch hook 2 not-a-token | tr '\0' '|')
assert_contains "$answer" "berth:"
assert_contains "$answer" "|/|"
cd "$T/app"
assert_eq "$(berth --json list | jq -c '.[0].changes.modified')" 1
assert_unchanged "$before"

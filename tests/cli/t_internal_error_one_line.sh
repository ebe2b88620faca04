# What escapes a command inside berth (std::bad_alloc, std::system_error) ends as one error line
# with the code `internal` and exit 1, in both front ends, text and JSON: never an abort (exit 134)
# with nothing a script can read. (Thrown on purpose with BERTH_TEST_FAIL_AT=throw:KIND.)
. "$(dirname "$0")/common.sh"
make_repo app
berth new x >/dev/null
before=$(fingerprint)
for kind in bad_alloc system_error; do
  for front in berth git-berth; do
    out=$(BERTH_TEST_FAIL_AT=throw:$kind expect_error internal 1 "$front" --json list)
    assert_contains "$(jq -r .error.message <<<"$out")" "internal error"
    BERTH_TEST_FAIL_AT=throw:$kind not 1 "$front" list >/dev/null
    assert_eq "$(last_stderr | head -1 | cut -c1-22)" "berth: internal error:"
  done
done
assert_unchanged "$before"

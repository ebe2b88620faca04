# --base must name a commit: anything else is invalid_revision (exit 4), nothing changed.
. "$(dirname "$0")/common.sh"
make_repo app
commit_file second.txt two
git tag v1 HEAD~1
before=$(fingerprint)

for base in nope HEAD~5 'HEAD^{tree}' "$(git rev-parse HEAD:README.md)" 0000000000000000000000000000000000000000 \
  -x "--output=$T/pwned" "main..HEAD"; do
  expect_error invalid_revision 4 berth --json new x "--base=$base" >/dev/null
done
expect_error usage 2 berth --json new x --base= >/dev/null
assert_unchanged "$before"
[[ ! -e $T/pwned ]]

# A tag, a short SHA, a relative revision: all resolved and recorded as a full SHA.
assert_eq "$(berth --json new a --base v1 | jq -r .base)" "$(git rev-parse HEAD~1)"
assert_eq "$(berth --json new b --base "$(git rev-parse --short HEAD)" | jq -r .base)" "$(git rev-parse HEAD)"
assert_eq "$(git -C "$(berth path a)" rev-parse HEAD)" "$(git rev-parse 'v1^{commit}')"

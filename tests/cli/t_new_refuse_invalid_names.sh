# Names that are not simple, safe ref components are refused with invalid_name (exit 2), and
# nothing changes.
. "$(dirname "$0")/common.sh"
make_repo app
berth new existing >/dev/null
before=$(fingerprint)

long=$(printf 'a%.0s' {1..101})
bad=(
  "" ".." "a..b" "-x" "--exec=x" "-" ".hidden" "x." "x.lock" "a/b.lock" "a b" " a" "a "
  $'a\tb' $'a\nb' $'a\x01b' $'a\x7fb' "a;b" 'a$b' 'a`id`' 'a|b' "a&b" "a>b" "a<b" "a(b" "a'b"
  'a"b' "a*" "a?" "a[b" "a~1" "a^" "a:b" 'a\b' "a@{1}" "@" "a/" "/a" "a//b" "a/.b" "a/-b"
  "$long" "refs/heads/main" "refs" "heads/x" "tags/v1" "remotes/origin/x" "HEAD" "é"
)
for name in "${bad[@]}"; do
  expect_error invalid_name 2 berth --json new -- "$name" >/dev/null
done

# Written like an option, it is refused before anything runs.
not 2 berth new --exec=x >/dev/null
not 2 berth new -x >/dev/null
[[ ! -e $T/app/x && ! -e $HOME/x ]]

assert_unchanged "$before"

# The limits are exact: 100 characters, and names with '.', '_', '-', '/' inside are fine.
ok=$(printf 'b%.0s' {1..100})
berth new "$ok" >/dev/null
berth new v1.2_fix-x/part.two >/dev/null

# `berth status NAME` shows one workspace in detail: branch, base, head, commits, changed files.
. "$(dirname "$0")/common.sh"
make_repo app
base=$(git rev-parse HEAD)
ws=$(berth new fix --owner alice)
cd "$ws"
commit_file fix.c "int fixed;"
echo more >>fix.c && git add fix.c
echo edit >>README.md
rm docs/guide.md
touch new1 new2
cd "$T/app"

text=$(berth status fix)
assert_contains "$text" "name       fix"
assert_contains "$text" "state      ready"
assert_contains "$text" "path       $ws"
assert_contains "$text" "branch     berth/fix"
assert_contains "$text" "base       $base"
assert_contains "$text" "head       $(git rev-parse berth/fix)"
assert_contains "$text" "1 ahead of base"
assert_contains "$text" "1 staged, 2 modified, 2 untracked, 0 conflicted"
assert_contains "$text" "owner      alice"

json=$(berth --json status fix)
assert_eq "$(jq -c '[.name, .branch, .base, .ahead, .dirty, .owner, .state]' <<<"$json")" \
  "[\"fix\",\"berth/fix\",\"$base\",1,true,\"alice\",\"ready\"]"
assert_eq "$(jq -c '.changes' <<<"$json")" '{"conflicted":0,"modified":2,"staged":1,"untracked":2}'
assert_eq "$(jq -r .head_branch <<<"$json")" berth/fix

# status is read-only: the workspace's index and files are as they were.
index=$(sha256sum <"$(git -C "$ws" rev-parse --git-path index)")
berth status fix >/dev/null
assert_eq "$(sha256sum <"$(git -C "$ws" rev-parse --git-path index)")" "$index"

before=$(fingerprint)
expect_error not_found 4 berth --json status nope >/dev/null
expect_error invalid_name 2 berth --json status -- -rf >/dev/null
assert_unchanged "$before"

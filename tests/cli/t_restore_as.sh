# `restore NAME --as NEW` brings the snapshot back under another name (its own branch and folder).
. "$(dirname "$0")/common.sh"
make_repo app
ws=$(berth new orig)
(cd "$ws" && commit_file a.txt committed) && echo wip >"$ws/wip.txt"
berth discard orig >/dev/null
berth new taken >/dev/null

new=$(berth restore orig --as copy)
assert_eq "$(basename "$new")" copy
assert_eq "$(git -C "$new" symbolic-ref --short HEAD)" berth/copy
assert_eq "$(cat "$new/a.txt") $(cat "$new/wip.txt")" "committed wip"
not 1 git rev-parse --verify -q refs/heads/berth/orig >/dev/null
[[ ! -e $ws ]]
assert_eq "$(berth --json list | jq -r '.[].name' | tr '\n' ' ')" "copy taken "

before=$(fingerprint)
expect_error name_taken 1 berth --json restore orig --as taken >/dev/null
expect_error invalid_name 2 berth --json restore orig --as ../x >/dev/null
assert_unchanged "$before"

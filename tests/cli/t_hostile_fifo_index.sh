# A command in a workspace replaced its index with a FIFO (its admin dir is writable): git would
# wait on it forever. berth answers for the other workspaces, shows this one as hostile, refuses
# to look inside (hostile_file, nothing changed), and discard keeps the work in the trash.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/hostile_helpers.sh"
two_workspaces_one_fifo x index

# list answers (bounded: a regression fails here instead of hanging), for both workspaces.
out=$(bounded --json list)
assert_eq "$(jq -r '.[] | select(.name == "x") | .state' <<<"$out")" hostile "x's state"
assert_contains "$(jq -r '.[] | select(.name == "x") | .problem' <<<"$out")" "$admin/index is a FIFO"
assert_eq "$(jq -r '.[] | select(.name == "y") | .state' <<<"$out")" ready "y's state"
# Its branch's commits still count (the branch is out of the workspace's reach), not a false 0.
assert_eq "$(jq -r '.[] | select(.name == "x") | .ahead' <<<"$out")" 1 "x's commits"
assert_eq "$(bounded --json status x | jq -r .state)" hostile "status"

# Reads and writes inside it are refused, and change nothing.
before=$(fingerprint)
expect_error hostile_file 5 bounded --json diff x >/dev/null
out=$(expect_error hostile_file 5 bounded --json commit x -m work)
assert_contains "$(jq -r .error.hint <<<"$out")" "doctor --repair"
assert_eq "$(jq -r '.error.paths[0]' <<<"$out")" "$admin/index"
expect_error hostile_file 5 bounded --json accept x >/dev/null
[[ -p $admin/index ]]
assert_eq "$(fingerprint)" "$before" "fingerprint after refusals"

# doctor says what it is (and does not hang on it).
not 1 bounded doctor >/dev/null
assert_contains "$(last_stderr)$(cat "$TMPDIR/not.out")" "$admin/index is a FIFO"

# discard works, and the work is in the trash; the user's gc no longer hangs.
out=$(bounded --json discard x)
assert_contains "$(jq -r '.warnings | join(" ")' <<<"$out")" "moved aside"
timeout 20 git gc -q
restored=$(bounded restore x)
assert_eq "$(cat "$restored/w.txt")" work "restored work"

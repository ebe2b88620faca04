# Every git_failed error document carries its `git` object (argv, status, stdout, stderr), also
# where berth found git's answer wanting rather than git failing: git that cannot be started, a
# trash ref git refuses to create, a pool slot whose checkout fails.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"

# has_git_object JSON: .error.git is {argv: ["git", ...], status: number, stdout, stderr: strings}.
has_git_object() {
  jq -e '.error.git | (.argv | type == "array" and .[0] == "git") and (.status | type == "number")
           and (.stdout | type == "string") and (.stderr | type == "string") and .stderr != ""' \
    <<<"$1" >/dev/null || {
    echo "no git object in: $1" >&2
    return 1
  }
}

make_repo app
before=$(fingerprint)

# git is not on PATH: nothing can be asked of it.
out=$(expect_error git_failed 1 json_logged env PATH=/nonexistent "$BERTH_BIN" --json list)
has_git_object "$out"
assert_eq "$(jq .error.git.status <<<"$out")" 127
assert_unchanged "$before"

# A ref named like the trash folder of x blocks every snapshot ref of x: the discard stops
# (trash_blocked, t_trash_blocked_by_ref), git's answer carried along.
ws=$(berth new x)
echo work >"$ws/work.txt"
git update-ref refs/berth/trash/x HEAD
before=$(fingerprint)
out=$(expect_error trash_blocked 1 berth --json discard x)
has_git_object "$out"
assert_contains "$(jq -r '.error.git.argv | join(" ")' <<<"$out")" "update-ref"
assert_unchanged "$before"
[[ -f $ws/work.txt ]]
git update-ref -d refs/berth/trash/x
berth discard x >/dev/null

# A pool slot whose checkout fails (a required filter that errors).
echo '*.dat filter=boom' >.gitattributes
echo payload >data.dat
git add -A && git commit -q -m "filtered data"
git config filter.boom.clean cat
git config filter.boom.smudge "sh -c 'exit 3'"
git config filter.boom.required true
out=$(BERTH_POOL_SIZE=1 expect_error git_failed 1 berth --json pool fill 1)
has_git_object "$out"
assert_contains "$(jq -r '.error.git.argv | join(" ")' <<<"$out")" "reset --hard"
wait_for_fillers

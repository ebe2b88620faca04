# The user's branch moved on after the workspace started, without touching the same lines: apply
# stages exactly the workspace's change on top of the new tip, merge merges both; nothing of the
# user's new commits is lost.
. "$(dirname "$0")/common.sh"
make_repo app
printf '1\n2\n3\n4\n5\n6\n7\n8\n9\n' >lines.txt
git add lines.txt && git commit -q -m lines
ws=$(berth new a)
sed -i 's/^2$/two (agent)/' "$ws/lines.txt"
echo agent >"$ws/agent.txt"
ws2=$(berth new b)
sed -i 's/^2$/two (b)/' "$ws2/lines.txt"
sed -i 's/^8$/eight (user)/' lines.txt
commit_file user.txt user "user moves on"
git commit -q -am "user edits line 8"
tip=$(git rev-parse HEAD)

# apply: staged on top of the new tip, HEAD unmoved.
berth accept a --strategy apply >/dev/null
assert_eq "$(git rev-parse HEAD)" "$tip"
assert_eq "$(git show :lines.txt | sed -n '2p;8p' | tr '\n' '|')" "two (agent)|eight (user)|"
assert_eq "$(git diff --cached --name-only | tr '\n' ' ')" "agent.txt lines.txt "
assert_eq "$(git diff --name-only)" ""
git commit -q -m "take a"
tip=$(git rev-parse HEAD)

# merge: a merge commit with both sides; b's line 2 conflicts with a's, so first a disjoint one.
ws3=$(berth new c)
echo c >"$ws3/c.txt"
commit_file user2.txt user2 "user moves on again"
tip=$(git rev-parse HEAD)
berth accept c --strategy merge >/dev/null
assert_eq "$(git rev-parse HEAD^1)" "$tip"
assert_eq "$(cat c.txt user2.txt)" "$(printf 'c\nuser2')"
assert_eq "$(git status --porcelain --untracked-files=all)" ""
# b touches the same line as a did: that is a conflict, not a silent overwrite.
not 3 berth accept b --strategy merge >/dev/null

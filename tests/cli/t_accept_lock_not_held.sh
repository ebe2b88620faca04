# accept does not hold berth's registry lock while it writes into the user's checkout (nor while
# the user's post-merge hook runs): other workspaces can be made meanwhile. The accepted workspace
# itself is held (busy) until the accept is done: a discard of it is refused, not interleaved.
. "$(dirname "$0")/common.sh"
make_repo app
hold_checkouts '*.held'
git add .gitattributes && git commit -q -m "held files"
ws=$(berth new x)
echo agent >"$ws/a.held"

berth accept x --strategy squash >"$T/accept.out" 2>&1 &
accept=$!
wait_for_file "$T/checkout-started"
# Half-way through writing into the checkout.
timeout 10 "$BERTH_BIN" new other >/dev/null
expect_error busy 5 berth --json discard x >/dev/null
touch "$T/release"
wait "$accept"
assert_eq "$(git show HEAD:a.held)" agent
assert_eq "$(git status --porcelain --untracked-files=all)" ""
[[ ! -e $ws ]] # discarded once landed
assert_eq "$(berth --json list | jq -r '[.[].name] | join(" ")')" other

# The post-merge hook too runs without the lock.
ws=$(berth new y)
echo y >"$ws/y.txt"
mkdir -p .git/hooks
printf '#!/bin/sh\ntimeout 10 "%s" new from-hook >/dev/null\n' "$BERTH_BIN" >.git/hooks/post-merge
chmod +x .git/hooks/post-merge
berth accept y --strategy squash >/dev/null
assert_eq "$(berth --json list | jq -r '[.[].name] | join(" ")')" "from-hook other"

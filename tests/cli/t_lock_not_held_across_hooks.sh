# berth's project lock is never held while a user's hook runs: a slow post-checkout hook of
# `berth new` and a slow post-merge hook of `berth sync` (the first run of each waits here until
# released) do not
# block `berth new` of another workspace (accept's post-merge: t_accept_lock_not_held).
. "$(dirname "$0")/common.sh"
make_repo app 5
mkdir -p .git/hooks
slow_hook() {
  cat >".git/hooks/$1" <<SH
#!/bin/sh
mkdir "$T/hook-waiting" 2>/dev/null || exit 0 # only the first run waits
touch "$T/hook-started"
i=0
while [ ! -e "$T/release" ] && [ \$i -lt 400 ]; do sleep 0.05; i=\$((i + 1)); done
SH
  chmod +x ".git/hooks/$1"
}
run_while_hook_waits() { # CMD...: start CMD, wait for its hook, then `berth new` must not wait
  rm -rf "$T/hook-started" "$T/release" "$T/hook-waiting"
  "$@" >"$T/cmd.out" 2>&1 &
  local pid=$!
  wait_for_file "$T/hook-started"
  timeout 10 "$BERTH_BIN" new "other$((++others))" >/dev/null
  touch "$T/release"
  wait "$pid"
}
others=0
slow_hook post-checkout
run_while_hook_waits "$BERTH_BIN" new x
rm .git/hooks/post-checkout
ws=$(berth path x)
echo work >"$ws/work.txt"
commit_file main.txt "user moved on"
slow_hook post-merge
run_while_hook_waits "$BERTH_BIN" sync x
assert_eq "$(git -C "$ws" show HEAD:main.txt)" "user moved on"
assert_eq "$(berth --json list | jq -r '[.[].name] | join(" ")')" "other1 other2 x"

#!/usr/bin/env bash
# `berth shell NAME` starts $SHELL in the workspace (the same subdirectory), with the workspace's
# environment, and exits with the shell's status.
. "$(dirname "$0")/common.sh"
make_repo app
berth new task >/dev/null
ws=$(berth path task)
cat >"$T/fake-shell" <<SH
#!/bin/sh
pwd >"$T/shell-cwd"
env | grep '^BERTH_' | sort >"$T/shell-env"
echo "args: \$#" >"$T/shell-args"
cat >"$T/shell-stdin"
exit 5
SH
chmod +x "$T/fake-shell"
status=0
SHELL=$T/fake-shell berth shell task </dev/null || status=$?
assert_eq "$status" 5 "the shell's status"
assert_eq "$(cat "$T/shell-cwd")" "$ws" "cwd"
assert_eq "$(cat "$T/shell-args")" "args: 0" "no arguments"
assert_contains "$(cat "$T/shell-env")" "BERTH_WORKSPACE=$ws"
assert_contains "$(cat "$T/shell-env")" "BERTH_NAME=task"
assert_contains "$(cat "$T/shell-env")" "BERTH_BASE=$(git rev-parse HEAD)"
assert_contains "$(cat "$T/shell-env")" "BERTH_PROJECT=$T/app"
assert_contains "$(cat "$T/shell-env")" "BERTH_PORT_9="
# From a subdirectory, the same subdirectory; --env works as for run.
cd src
SHELL=$T/fake-shell berth shell task --env EXTRA=1 </dev/null || true
assert_eq "$(cat "$T/shell-cwd")" "$ws/src" "cwd from src"
# Busy while the shell runs, ready afterwards.
assert_eq "$(berth --json status task | jq -r .state)" ready "state"
not 4 berth shell nope </dev/null

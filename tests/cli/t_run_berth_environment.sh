#!/usr/bin/env bash
# The command sees BERTH_WORKSPACE, BERTH_NAME, BERTH_BASE, BERTH_PROJECT, BERTH_PORT and
# BERTH_PORT_0..9 (ten consecutive ports, the first being BERTH_PORT).
. "$(dirname "$0")/common.sh"
make_repo app
berth new feat/search >/dev/null
berth run feat/search -- sh -c 'env | grep "^BERTH_" | sort' >"$T/env"
get() { sed -n "s/^$1=//p" "$T/env"; }
assert_eq "$(get BERTH_WORKSPACE)" "$(berth path feat/search)" BERTH_WORKSPACE
assert_eq "$(get BERTH_NAME)" feat/search BERTH_NAME
assert_eq "$(get BERTH_BASE)" "$(git rev-parse HEAD)" BERTH_BASE
assert_eq "$(get BERTH_PROJECT)" "$T/app" BERTH_PROJECT
port=$(get BERTH_PORT)
[[ $port =~ ^[0-9]+$ ]] && ((port >= 20000 && port + 9 <= 29999))
for i in 0 1 2 3 4 5 6 7 8 9; do
  assert_eq "$(get "BERTH_PORT_$i")" $((port + i)) "BERTH_PORT_$i"
done
# Nothing else (beyond what the caller's environment already had).
assert_eq "$(grep -v -c -e '^BERTH_POOL_SIZE=' -e '^BERTH_BIN=' "$T/env")" 15 \
  "number of BERTH_ variables"
# The same environment in every run: the port block is the workspace's for life.
assert_eq "$(berth run feat/search -- sh -c 'echo $BERTH_PORT')" "$port" "stable port"
assert_eq "$(berth --json status feat/search | jq -r .port)" "$port" "status port"

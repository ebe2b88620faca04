#!/usr/bin/env bash
# The command reads berth's stdin, byte for byte.
. "$(dirname "$0")/common.sh"
make_repo app
berth new task >/dev/null
assert_eq "$(printf 'one\ntwo\n' | berth run task -- cat)" "$(printf 'one\ntwo\n')" "stdin"
head -c 100000 /dev/urandom >"$T/blob"
berth run task -- sh -c 'cat >blob.copy' <"$T/blob"
cmp "$T/blob" "$(berth path task)/blob.copy"
assert_eq "$(berth run task -- wc -c </dev/null | tr -d ' ')" 0 "empty stdin"

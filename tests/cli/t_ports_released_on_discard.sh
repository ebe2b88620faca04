#!/usr/bin/env bash
# A discarded workspace's port block is free again: with room for two blocks only, a third
# workspace is refused until one is discarded, and then gets that block back. A port in use on
# the machine is never handed out.
. "$(dirname "$0")/common.sh"
make_repo app
export BERTH_PORTS_RANGE=31000-31019
berth new a >/dev/null
berth new b >/dev/null
assert_eq "$(berth --json status a | jq -r .port)" 31000 "a"
assert_eq "$(berth --json status b | jq -r .port)" 31010 "b"
before=$(fingerprint)
out=$(expect_error io_error 1 berth --json new c)
assert_contains "$(jq -r .error.message <<<"$out")" "no free block"
assert_unchanged "$before"
berth discard a >/dev/null
berth new c >/dev/null
assert_eq "$(berth --json status c | jq -r .port)" 31000 "c gets a's block"
# A listener on a port of the next free block: that block is skipped.
berth discard b >/dev/null
export BERTH_PORTS_RANGE=31000-31029
python3 -c 'import socket,sys,time; s=socket.socket(); s.bind(("0.0.0.0", 31015)); s.listen(); open(sys.argv[1],"w").close(); time.sleep(60)' "$T/listening" &
wait_for_file "$T/listening"
berth new d >/dev/null
assert_eq "$(berth --json status d | jq -r .port)" 31020 "d skips the busy block"

#!/usr/bin/env bash
# With --net off, a sandboxed command cannot reach a UDP listener on the host; nothing arrives.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

attempt() { net_off_attempt udp; }
NEEDS_NAMESPACES="--net off" escape_matrix attempt

#!/usr/bin/env bash
# With --net off, a sandboxed command cannot reach a UNIX listener on the host; nothing arrives.
# (A unix socket is reached by its path, like docker.sock or $SSH_AUTH_SOCK.)
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

attempt() { net_off_attempt unix; }
NEEDS_NAMESPACES="--net off" escape_matrix attempt

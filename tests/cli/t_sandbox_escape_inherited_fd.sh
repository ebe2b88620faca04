#!/usr/bin/env bash
# A descriptor open in the caller (here fd 7, writable, on a file outside the workspace) is not
# inherited by the sandboxed command: neither as fd 7 nor through /proc/self/fd/7.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

attempt() {
  local target=$T/fd-target-$WHO-$MECH
  echo "original" >"$target"
  exec 7>>"$target"
  escape 'echo pwned >&7'
  escape 'echo pwned >/proc/self/fd/7'
  escape 'ls -l /proc/self/fd/ | grep -q fd-target'
  # Nothing beyond stdio is open in the command (the listing's own descriptor aside).
  allowed 'ls /proc/self/fd >"$BERTH_WORKSPACE/fds.txt"'
  exec 7>&-
  [[ $(cat "$target") == original ]]
  local fds
  fds=$(tr '\n' ' ' <"$(berth path agent)/fds.txt")
  [[ $fds == "0 1 2 3 " ]] || {
    echo "descriptors open in the sandbox: $fds" >&2
    return 1
  }
}
escape_matrix attempt

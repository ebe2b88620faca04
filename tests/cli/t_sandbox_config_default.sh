#!/usr/bin/env bash
# `run.sandbox = true` in the config sandboxes every `berth run` (so `--net off` needs no
# --sandbox then); `--sandbox=off` overrides it for one run.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

attempt() {
  local out
  out=$(BERTH_RUN_SANDBOX=true berth --json run agent -- sh -c 'echo pwned >"$BERTH_PROJECT/README.md"' 2>/dev/null) || true
  assert_eq "$(jq -r '.sandbox | length > 0' <<<"$out")" true "sandboxed by the config"
  assert_eq "$(cat README.md)" "# world-$WHO-$MECH/app" "README.md"
  out=$(berth -c run.sandbox=true --json run agent --net off -- true)
  assert_eq "$(jq -r .exit_status <<<"$out")" 0 "exit status"
  out=$(BERTH_RUN_SANDBOX=true berth --json run agent --sandbox=off -- true)
  assert_eq "$(jq -r '.sandbox | length' <<<"$out")" 0 "--sandbox=off"
  # A bare --sandbox before NAME is the default mode, not a mode named "agent".
  out=$(berth --json run --sandbox agent --net off -- true)
  assert_eq "$(jq -r '.sandbox | length > 0' <<<"$out")" true "bare --sandbox"
}
MECH_ONLY=landlock escape_matrix attempt

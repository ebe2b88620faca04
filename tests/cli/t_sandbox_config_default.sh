#!/usr/bin/env bash
# `run.sandbox = true` in the config sandboxes every `berth run` (so `--net off` needs no
# --sandbox then); `--sandbox=off` overrides it for one run. Where the kernel gives the user no
# network namespace, that --net off is refused as any sandboxed one is (t_sandbox_net_off_no_userns).
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

# net_off_runs BERTH-ARGS...: a sandboxed `run ... --net off -- true` runs (or, where the kernel
# gives this user no network namespace, is refused as sandboxed runs are there).
net_off_runs() {
  local out
  if namespaces_available >/dev/null; then
    out=$(berth "$@")
    assert_eq "$(jq -r '.sandbox | length > 0' <<<"$out")" true "sandboxed: $*"
    assert_eq "$(jq -r .exit_status <<<"$out")" 0 "exit status: $*"
  else
    out=$(expect_error sandbox_unavailable 1 berth "$@")
    assert_contains "$out" "no private network namespace"
  fi
}

attempt() {
  local out
  out=$(BERTH_RUN_SANDBOX=true berth --json run agent -- sh -c 'echo pwned >"$BERTH_PROJECT/README.md"' 2>/dev/null) || true
  assert_eq "$(jq -r '.sandbox | length > 0' <<<"$out")" true "sandboxed by the config"
  assert_eq "$(cat README.md)" "# world-$WHO-$MECH/app" "README.md"
  net_off_runs -c run.sandbox=true --json run agent --net off -- true
  out=$(BERTH_RUN_SANDBOX=true berth --json run agent --sandbox=off -- true)
  assert_eq "$(jq -r '.sandbox | length' <<<"$out")" 0 "--sandbox=off"
  # A bare --sandbox before NAME is the default mode, not a mode named "agent".
  net_off_runs --json run --sandbox agent --net off -- true
}
MECH_ONLY=landlock escape_matrix attempt

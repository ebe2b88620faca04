#!/usr/bin/env bash
# Root's sandboxed run keeps no capability that reaches outside it: under Landlock (where the
# command runs as root in the run's own network namespace) the bounding set holds only a
# container's default set — no CAP_NET_ADMIN, whose netlink reaches other namespaces by id (an
# interface made in the host's namespace, a macvlan on its NIC), no CAP_SYS_ADMIN, no
# CAP_DAC_READ_SEARCH; under bwrap none at all. `ip link add … netns 1` fails and the host has no
# new interface. (Run as root only: other users have no capability to drop.)
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"
[[ $(id -u) == 0 ]] || skip "needs root"

# The capability bits of a hex mask that are set, as numbers.
bits() { "$PY" -c "import sys; m = int(sys.argv[1], 16); print(' '.join(str(b) for b in range(64) if m >> b & 1))" "$1"; }

attempt() {
  local out before bnd eff
  before=$(fingerprint)
  out=$(berth run agent --sandbox="$MECH" --net off -- cat /proc/self/status)
  bnd=$(bits "$(awk '/^CapBnd:/ {print $2}' <<<"$out")")
  eff=$(bits "$(awk '/^CapEff:/ {print $2}' <<<"$out")")
  for cap in 2 12 16 17 19 21; do # DAC_READ_SEARCH NET_ADMIN SYS_MODULE SYS_RAWIO SYS_PTRACE SYS_ADMIN
    assert_not_contains " $bnd " " $cap " "CapBnd of a $MECH run"
    assert_not_contains " $eff " " $cap " "CapEff of a $MECH run"
  done
  [[ $MECH == bwrap ]] && assert_eq "$eff" "" "CapEff under bwrap"
  if command -v ip >/dev/null; then
    local links status=0
    links=$(ip -o link | wc -l)
    berth run agent --sandbox="$MECH" --net off -- ip link add berthv0 type veth peer name berthv1 netns 1 \
      >"$TMPDIR/ip.out" 2>&1 || status=$?
    if [[ $status == 0 ]]; then
      echo "ip link add succeeded in a $MECH run" >&2
      return 1
    fi
    assert_eq "$(ip -o link | wc -l)" "$links" "the host's interfaces"
    not 1 ip link show berthv1 2>/dev/null
  fi
  assert_unchanged "$before"
}
SANDBOX_USERS=self NEEDS_NAMESPACES="--net off" escape_matrix attempt

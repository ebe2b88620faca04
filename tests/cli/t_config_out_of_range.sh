# Config values of the right type but out of range (`pool.size = -3`, an unknown strategy, a port
# range below 1024) are config_invalid (exit 2) naming the key, where it was set and what is
# accepted, for every layer (your file, the repository's, BERTH_* and -c); nothing changes. They
# used to be taken as they were (a pool of -3 slots, a strategy refused only at accept time).
. "$(dirname "$0")/common.sh"
make_repo app
berth new x >/dev/null
before=$(fingerprint)
mkdir -p "$XDG_CONFIG_HOME/berth"
user_file=$XDG_CONFIG_HOME/berth/config.toml

# refused WHERE ACCEPTED CMD...: config_invalid whose message names WHERE and ACCEPTED.
refused() {
  local where=$1 accepted=$2 out
  shift 2
  out=$(expect_error config_invalid 2 "$@")
  assert_contains "$(jq -r .error.message <<<"$out")" "$where"
  assert_contains "$(jq -r .error.message <<<"$out")" "$accepted"
  assert_contains "$(jq -r .error.hint <<<"$out")" "fix"
}

printf '[pool]\nsize = -3\n' >"$user_file"
refused "$user_file: pool.size = -3" "from 0 (no pool) to 64" berth --json list
printf '[pool]\nsize = 1000\n' >"$user_file"
refused "pool.size = 1000" "to 64" berth --json pool status
rm "$user_file"
printf '[pool]\nsize = -1\n' >.berth.toml
refused "$T/app/.berth.toml: pool.size = -1" "to 64" berth --json new y
rm .berth.toml
BERTH_POOL_SIZE=-3 refused "BERTH_POOL_SIZE: pool.size = -3" "to 64" berth --json pool fill
BERTH_POOL_SIZE=lots refused "BERTH_POOL_SIZE: pool.size must be an integer" "lots" berth --json list
refused "-c pool.size: pool.size = -2" "to 64" berth --json -c pool.size=-2 list

printf '[accept]\nstrategy = "yolo"\n' >"$user_file"
refused "accept.strategy = yolo" "apply, merge, squash, ff or rebase" berth --json list
rm "$user_file"
refused "-c accept.strategy" "apply, merge" berth --json -c accept.strategy=octopus status x

printf '[setup]\nlfs = "sometimes"\n' >"$user_file"
refused "setup.lfs = sometimes" "auto or skip" berth --json new y
rm "$user_file"

BERTH_PORTS_RANGE=80-90 refused "BERTH_PORTS_RANGE: ports.range = 80-90" "1024-65535" berth --json list
refused "ports.range = 30000-30003" "block of 10" berth --json -c ports.range=30000-30003 list

BERTH_RUN_SANDBOX=maybe refused "BERTH_RUN_SANDBOX: run.sandbox must be true or false" "maybe" berth --json list
printf '[watch]\nenabled = 2\n' >"$user_file"
refused "watch.enabled must be a boolean" "$user_file" berth --json list
rm "$user_file"

printf 'branch_prefix = "no-slash"\n' >"$user_file"
refused "$user_file: invalid branch_prefix 'no-slash'" "end with '/'" berth --json list
rm "$user_file"

# A negative count for `pool fill` is a usage error.
expect_error usage 2 berth --json pool fill -- -2 >/dev/null
assert_unchanged "$before"

# The limits themselves are fine.
BERTH_POOL_SIZE=0 berth list >/dev/null
berth -c pool.size=64 -c ports.range=1024-1033 -c setup.lfs=skip -c accept.strategy=ff list >/dev/null

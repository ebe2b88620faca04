#!/usr/bin/env bash
# The project's .env secrets stay unreadable from a sandboxed run wherever they were copied:
# an ignored .env inside an ignored folder of the checkout (config/local/.env), the set-up copies
# in another workspace and in a pool slot. The run's own workspace's copy stays readable (set-up
# put it there for the run's tests). Both mechanisms, as root and as an unprivileged user.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"
. "$(dirname "$0")/pool_helpers.sh"

attempt() {
  local before other slot own
  printf '.env\nconfig/local/\n' >>.git/info/exclude
  echo "SECRET-top" >.env
  mkdir -p config/local && echo "SECRET-deep" >config/local/.env
  [[ $WHO == nobody ]] && chown -R $NOBODY:$NOBODY .env config
  berth -c 'setup.copy=[".env"]' new other >/dev/null
  other=$(berth path other)
  as_user mkdir -p "$other/config/local"
  as_user cp config/local/.env "$other/config/local/.env"
  BERTH_POOL_SIZE=1 berth pool fill >/dev/null
  slot=$(git worktree list --porcelain | sed -n 's/^worktree //p' | grep -v -e "$other" \
    -e "$(berth path agent)" -e "^$PWD\$" | head -1)
  [[ -n $slot && -d $slot ]] || { echo "no pool slot" >&2; return 1; }
  as_user cp .env "$slot/.env"
  own=$(berth path agent)
  as_user sh -c "echo SECRET-own >'$own/.env'"
  before=$(fingerprint)

  escape 'cat "$BERTH_PROJECT/config/local/.env"'
  escape "cat '$other/.env'"
  escape "cat '$other/config/local/.env'"
  escape "cat '$slot/.env'"
  assert_not_contains "$(cat "$TMPDIR/escape.out")" SECRET
  allowed 'cat "$BERTH_WORKSPACE/.env"'
  assert_eq "$(cat "$TMPDIR/escape.out")" "SECRET-own" "the run's own .env"
  assert_unchanged "$before"
  pool_quiesce
}
escape_matrix attempt

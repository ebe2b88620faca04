#!/usr/bin/env bash
# Every sandboxed run gets per-project caches for the common package managers, writable, under
# berth's data dir (never the user's own ~/.npm or ~/.cache, which unconfined builds trust):
# `npm install` works inside by default instead of failing with EACCES on ~/.npm, and `go install`
# writes to GOBIN (GOPATH/bin) there instead of ~/go/bin.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

VARS=(npm_config_cache PNPM_HOME YARN_CACHE_FOLDER YARN_GLOBAL_FOLDER PIP_CACHE_DIR
  UV_CACHE_DIR CARGO_HOME GOPATH GOBIN GOMODCACHE GOCACHE XDG_CACHE_HOME)

attempt() {
  local before i dirs=()
  before=$(fingerprint)
  # Every variable in one run (each run goes through the same set-up): set, under berth's data
  # dir, writable from inside; then, from outside, each one's file is there.
  allowed "for v in ${VARS[*]}; do"' eval "d=\${$v:-}"
    case $d in "$XDG_DATA_HOME"/berth/cache/app-*) ;; *) echo "$v=$d" >&2; exit 1 ;; esac
    mkdir -p "$d/x" && echo ok >"$d/x/f" || exit 1
  done'
  mapfile -t dirs < <(as_user "$BERTH_BIN" run agent --sandbox="$MECH" -- sh -c \
    "for v in ${VARS[*]}; do"' eval "d=\${$v:-}"; printf "%s\n" "$d"; done')
  assert_eq "${#dirs[@]}" "${#VARS[@]}" "cache variables printed"
  for i in "${!VARS[@]}"; do
    assert_eq "$(cat "${dirs[i]}/x/f")" ok "${VARS[i]}"
  done
  # The user's own caches stay read-only.
  escape 'mkdir -p "$HOME/.npm/_cacache"'
  escape 'mkdir -p "$HOME/.cache/pip"'
  # --env still wins.
  ESCAPE_OPTS=(--env PIP_CACHE_DIR=/nonexistent/mine)
  allowed 'test "$PIP_CACHE_DIR" = /nonexistent/mine'
  ESCAPE_OPTS=()
  if command -v npm >/dev/null && [[ $WHO == self ]]; then
    # A real install, offline, from a local tarball: npm writes its cache and logs.
    local ws pkg
    ws=$(berth path agent)
    mkdir -p "$T/pkg-$MECH" && echo '{"name":"leftpad-local","version":"1.0.0"}' >"$T/pkg-$MECH/package.json"
    pkg=$(cd "$T/pkg-$MECH" && npm pack --silent 2>/dev/null | tail -1)
    cp "$T/pkg-$MECH/$pkg" "$ws/"
    echo '{"name":"app","version":"1.0.0"}' >"$ws/package.json"
    allowed "npm install --offline --no-audit --no-fund ./$pkg >/dev/null 2>npm.err || { cat npm.err \"\$npm_config_cache\"/_logs/*.log >&2; exit 1; }"
    test -f "$ws/node_modules/leftpad-local/package.json"
    # berth's cache variables are all ones npm knows (no "Unknown env config" on every run).
    not 1 grep "Unknown env config" "$ws/npm.err"
    (cd "$ws" && rm -rf node_modules package.json package-lock.json npm.err "$pkg")
  fi
  assert_unchanged "$before"
}
escape_matrix attempt

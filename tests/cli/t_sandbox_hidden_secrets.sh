#!/usr/bin/env bash
# A sandboxed command cannot read the user's credentials (docs/sandbox.md lists them): ssh and
# gpg keys, cloud and cluster credentials, the GitHub CLI's token, registry tokens, the main
# checkout's .env. Both mechanisms, as root and as an unprivileged user. sandbox.hidden adds a
# path; --allow-read shows one again; the rest of $HOME stays readable.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

SECRETS=(.ssh/id_ed25519 .gnupg/private-keys-v1.d/key .aws/credentials .azure/msal_token_cache.json
  .config/gcloud/credentials.db .kube/config .docker/config.json .config/gh/hosts.yml .netrc
  .git-credentials .config/git/credentials .npmrc .pypirc .cargo/credentials.toml .pgpass)

attempt() {
  local before f project
  project=$PWD
  for f in "${SECRETS[@]}"; do
    mkdir -p "$(dirname "$HOME/$f")"
    echo "SECRET-$f" >"$HOME/$f"
  done
  mkdir -p "$HOME/private" "$HOME/notes"
  echo "SECRET-private" >"$HOME/private/diary"
  echo "just notes" >"$HOME/notes/todo"
  echo ".env*" >>.git/info/exclude
  echo "SECRET-dotenv" >.env
  mkdir -p api && echo "SECRET-dotenv-api" >api/.env.local
  [[ $WHO == nobody ]] && chown -R $NOBODY:$NOBODY "$HOME" .env api
  before=$(fingerprint)

  # One run tries each (a run per file would take a minute): every read must fail.
  allowed 'leaked=0
    for f in '"${SECRETS[*]}"'; do
      if cat "$HOME/$f" 2>/dev/null; then echo "read ~/$f" >&2; leaked=1; fi
    done
    for f in .env api/.env.local; do
      if cat "$BERTH_PROJECT/$f" 2>/dev/null; then echo "read $f" >&2; leaked=1; fi
    done
    exit $leaked'
  assert_not_contains "$(cat "$TMPDIR/escape.out")" SECRET
  escape 'cat "$BERTH_PROJECT/.env"'
  escape 'ls "$HOME/.ssh/id_ed25519" && cat "$HOME/.ssh/"*'
  escape 'cp -r "$HOME/.aws" "$BERTH_WORKSPACE/stolen" && cat "$BERTH_WORKSPACE/stolen/credentials"'
  assert_not_contains "$(cat "$TMPDIR/escape.out")" SECRET
  if [[ -e "$(berth path agent)/stolen" ]]; then
    assert_eq "$(find "$(berth path agent)/stolen" -type f)" "" "files copied out of ~/.aws"
    rm -rf "$(berth path agent)/stolen"
  fi
  # The rest stays readable: the command needs its tools' settings.
  allowed 'cat "$HOME/notes/todo" && cat "$HOME/.gitconfig" >/dev/null && cat "$BERTH_PROJECT/README.md" >/dev/null'

  # sandbox.hidden adds one (the user's own config layer; here a -c flag).
  allowed 'cat "$HOME/private/diary"'
  ESCAPE_OPTS=(-c 'sandbox.hidden=~/private')
  escape 'cat "$HOME/private/diary"'
  # --allow-read shows a hidden one again, and only that one.
  ESCAPE_OPTS=(--allow-read '~/.netrc')
  allowed 'grep -q SECRET-.netrc "$HOME/.netrc"'
  escape 'cat "$HOME/.ssh/id_ed25519"'
  ESCAPE_OPTS=()
  # A path inside a hidden one, or one that hides nothing: refused before anything runs.
  expect_error usage 2 berth --json run agent --sandbox="$MECH" --allow-read '~/.ssh/id_ed25519' -- true >/dev/null
  expect_error usage 2 berth --json run agent --sandbox="$MECH" --allow-read '~/notes' -- true >/dev/null
  # Outside the sandbox the flags mean nothing: refused, not ignored.
  expect_error usage 2 berth --json run agent --allow-read '~/.netrc' -- true >/dev/null
  assert_unchanged "$before"
  for f in "${SECRETS[@]}"; do
    assert_eq "$(cat "$HOME/$f")" "SECRET-$f" "$f"
  done
}
escape_matrix attempt

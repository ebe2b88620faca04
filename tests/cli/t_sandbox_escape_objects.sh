#!/usr/bin/env bash
# A sandboxed command cannot rewrite, truncate or delete an existing object of the shared store
# (loose or packed), nor add objects to it behind berth's back.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/sandbox_helpers.sh"

attempt() {
  local before common obj packed sums
  common=$(common_dir)
  obj=$(git rev-parse HEAD:README.md)
  obj=objects/${obj:0:2}/${obj:2}
  git branch packed-one "$(git commit-tree -m packed "HEAD^{tree}")"
  git repack -q -d # packs what is reachable; README.md's loose copy goes, so make one again
  git hash-object -w --stdin <<<"loose object" >/dev/null
  obj=$(git hash-object --stdin <<<"loose object")
  obj=objects/${obj:0:2}/${obj:2}
  [[ -f $common/$obj ]]
  packed=$(cd "$common" && ls objects/pack/*.pack | head -1)
  sums=$(cd "$common" && find objects -type f -print0 | sort -z | xargs -0 sha256sum)
  before=$(fingerprint)
  local C='"$(git rev-parse --git-common-dir)"'
  escape "echo pwned >$C/$obj"
  escape "chmod u+w $C/$obj && echo pwned >$C/$obj"
  escape ": >$C/$obj"
  escape "rm -f $C/$obj"
  escape "mv $C/$obj $C/$obj.moved"
  escape "echo pwned >>$C/$packed"
  escape "rm -f $C/$packed"
  escape "echo garbage >$C/objects/pack/pack-0000000000000000000000000000000000000000.pack"
  escape "mkdir -p $C/objects/ab && echo x >$C/objects/ab/cdef"
  escape "echo new content | GIT_OBJECT_DIRECTORY=$C/objects git hash-object -w --stdin"
  escape "echo /tmp/evil-objects >>$C/objects/info/alternates"
  [[ $(cd "$common" && find objects -type f -print0 | sort -z | xargs -0 sha256sum) == "$sums" ]]
  assert_unchanged "$before"
  git fsck --no-progress --no-dangling
}
escape_matrix attempt

# Helpers of the watcher tests (t_watch_*.sh), sourced after common.sh.

# git_counts DIR: what git says of DIR with no help (every file stat'ed, every folder read), as
# list counts them: dirty,staged,modified,untracked,conflicted.
git_counts() {
  GIT_OPTIONAL_LOCKS=0 git -C "$1" -c core.fsmonitor=false -c core.untrackedCache=false \
    status --porcelain=v2 --untracked-files=all |
    awk '/^[12] / { if (substr($2, 1, 1) != ".") s++; if (substr($2, 2, 1) != ".") m++ }
         /^u / { c++ }
         /^\? / { u++ }
         END { printf "%s,%d,%d,%d,%d", (s + m + u + c > 0) ? "true" : "false", s, m, u, c }'
}

# assert_same_snapshot REF REF: two trash snapshots hold the same HEAD (parent 1), staged tree
# (parent 2's tree) and work tree (the commit's tree); the work trees' difference is shown.
assert_same_snapshot() {
  local a=$1 b=$2
  [[ -n $a && -n $b ]]
  assert_eq "$(git rev-parse "$a^1")" "$(git rev-parse "$b^1")" "HEAD"
  assert_eq "$(git rev-parse "$a^2^{tree}")" "$(git rev-parse "$b^2^{tree}")" "staged tree"
  if [[ $(git rev-parse "$a^{tree}") != "$(git rev-parse "$b^{tree}")" ]]; then
    git diff --stat "$b" "$a" >&2
    assert_eq "$(git rev-parse "$a^{tree}")" "$(git rev-parse "$b^{tree}")" "work tree"
  fi
}

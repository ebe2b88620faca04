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

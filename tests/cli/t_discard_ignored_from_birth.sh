# A discard of a pooled workspace nobody looked at says whether ignored files go with it (they are
# not saved) without a walk of the whole tree: the slot was born with no untracked file but
# set-up's, so its ignored files now are among the paths the watcher saw change since and those
# that left the index since. berth reads the index itself (its cache-tree says what left it; it
# says which paths it tracks) and asks git's rules of those paths alone; when something was
# staged since (no valid cache-tree), git reads the index (diff-index, ls-files limited to the
# paths). Each way an ignored file comes to be is checked against git's own walk of the tree, and
# against the walk discard falls back to when the watcher cannot name the paths.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/pool_helpers.sh"
make_repo app 30
printf 'build/\n*.log\nnode_modules/\n' >.gitignore
mkdir -p dist && echo 'built();' >dist/app.js
git add -A && git commit -q -m 'ignore rules, a committed dist'
mkdir -p node_modules/dep && echo 'module.exports = 1' >node_modules/dep/index.js
export BERTH_POOL_SIZE=1

# fresh NAME: a workspace taken from a slot settled just now (its birth kept), nobody looking at
# it; the path.
fresh() {
  berth pool fill >/dev/null && wait_for_fillers
  berth new "$1" >/dev/null 2>&1 && wait_for_fillers
  berth path "$1"
}

# git_says WS: "note" when git's own walk finds ignored files in WS, else "none".
git_says() {
  if [[ -n $(git -C "$1" ls-files --others --ignored --exclude-standard --directory) ]]; then
    echo note
  else
    echo none
  fi
}

# discarded NAME NOTE HOW: discard NAME; whether it said ignored files go ("note" or "none"), and
# how it looked for them: "paths" (from the birth: the paths changed since, the index read by
# berth, no git call that reads the whole index), "index" (from the birth, git reading the index:
# diff-index, ls-files limited to the paths) or "walk" (the whole tree).
discarded() {
  local name=$1 trace=$TMPDIR/trace.$1 said=none how
  # (The background filler the discard starts is traced too: its looks have no --directory.
  # git appends to a trace file: a name discarded twice starts a new one.)
  rm -f "$trace"
  GIT_TRACE2_EVENT=$trace berth discard "$name" 2>"$TMPDIR/err.$name" >/dev/null
  grep -q "ignored files (build output) are not saved" "$TMPDIR/err.$name" && said=note
  assert_eq "$said" "$2" "discard's note ($name)"
  how=$(jq -r 'select(.event == "start") | .argv
               | if index("diff-index") and index("--diff-filter=D") then "index"
                 elif index("ls-files") and index("--ignored") and index("--directory")
                   and (index("--") | not) then "walk"
                 elif index("ls-files") and index("--ignored") and index("--") then "index"
                 else empty end' "$trace" | sort -u | paste -sd,)
  [[ -n $how ]] || how=paths
  assert_eq "$how" "$3" "how discard looked ($name)"
  wait_for_fillers
}

# The slot's birth is kept beside its shadow.
berth pool fill >/dev/null && wait_for_fillers
births=(.git/berth/shadow/*.birth)
test -f "${births[0]}"
assert_eq "$(jq -r .commit "${births[0]}")" "$(git rev-parse HEAD)"

# Work, but nothing ignored: no note.
ws=$(fresh clean)
echo change >>"$ws/README.md" && echo new >"$ws/new.txt" && rm "$ws/files/1/f1.txt"
assert_eq "$(git_says "$ws")" none
discarded clean none paths

# A new ignored file, a new ignored folder.
ws=$(fresh logs)
echo 'log' >"$ws/run.log"
assert_eq "$(git_says "$ws")" note
discarded logs note paths
# The name again at once, checked out cold: the old tree's birth went with it (walked).
ws=$(berth new --no-pool logs 2>/dev/null)
echo change >>"$ws/README.md"
discarded logs none walk
ws=$(fresh objs)
# (Two files under one new folder: `ls-files --directory` with such paths trips a git 2.39 bug.)
mkdir -p "$ws/build/obj" && echo obj >"$ws/build/obj/main.o" && echo obj >"$ws/build/obj/util.o"
discarded objs note paths

# Made and removed again: nothing left.
ws=$(fresh gone)
echo 'log' >"$ws/tmp.log" && rm "$ws/tmp.log"
assert_eq "$(git_says "$ws")" none
discarded gone none paths

# Untracked first, then ignored by a rule the agent added.
ws=$(fresh rule)
echo 'scratch' >"$ws/notes.tmp"
echo '*.tmp' >>"$ws/.gitignore"
assert_eq "$(git_says "$ws")" note
discarded rule note paths

# Tracked at birth, untracked since (left the index, never touched in the tree), and ignored by
# the agent's rule: the watcher never saw it change. (`git rm --cached` invalidates the index's
# cache-tree: git reads the index.)
ws=$(fresh untracked)
echo 'dist/' >>"$ws/.gitignore"
git -C "$ws" rm -r -q --cached dist
assert_eq "$(git_says "$ws")" note
discarded untracked note index
# The same, committed: the cache-tree is valid again, and what left the index is a diff of the
# birth's tree and the index's (no git call reads the index).
ws=$(fresh committed)
echo 'dist/' >>"$ws/.gitignore"
git -C "$ws" rm -r -q --cached dist
git -C "$ws" commit -q -m 'untrack dist'
assert_eq "$(git_says "$ws")" note
discarded committed note paths
# A tracked file the rules ignore (committed before the rule) is not an ignored file: edited, it
# stays tracked.
ws=$(fresh tracked)
echo 'dist/' >>"$ws/.gitignore" && echo 'more();' >>"$ws/dist/app.js"
assert_eq "$(git_says "$ws")" none
discarded tracked none paths

# Set-up's own ignored files (a clone of node_modules, carried by the slot) are not lost work:
# no note.
export BERTH_SETUP_CLONE=node_modules
ws=$(fresh deps)
test -f "$ws/node_modules/dep/index.js"
assert_eq "$(git_says "$ws")" note
discarded deps none paths
unset BERTH_SETUP_CLONE
berth pool drain >/dev/null && wait_for_fillers

# Names compressed in the index (version 4, as feature.manyFiles has git write it): read by berth
# as well.
git config index.version 4
berth pool drain >/dev/null && wait_for_fillers
ws=$(fresh compressed)
assert_eq "$(od -An -tu1 -j7 -N1 "$(git -C "$ws" rev-parse --git-dir)/index" | tr -d ' ')" 4 \
  "the index's version"
echo 'log' >"$ws/v4.log"
assert_eq "$(git_says "$ws")" note
discarded compressed note paths
git config --unset index.version
berth pool drain >/dev/null && wait_for_fillers

# The watcher gone (it cannot name the paths since): the look from the birth gives up, the whole
# tree is walked, same answers.
for want in note none; do
  ws=$(fresh "blind-$want")
  [[ $want == note ]] && echo 'log' >"$ws/late.log"
  echo change >>"$ws/README.md"
  pkill -f -- "watch serve $T/" && sleep 0.2
  assert_eq "$(git_says "$ws")" "$want"
  discarded "blind-$want" "$want" walk
done

# A workspace made without the pool has no birth: walked.
ws=$(berth new --no-pool plain 2>/dev/null)
echo 'log' >"$ws/plain.log"
discarded plain note walk
pool_quiesce

# Fault injection at every git call of a berth command, sourced after common.sh:
#
#   . "$(dirname "$0")/git_fault_helpers.sh"
#   for ((k = 1; ; k += CRASH_STRIDE)); do
#     crash_at_git_call "$k" alone discard x || break   # 1: it completed without reaching call k
#     ...check what the kill left, settle it, check again...
#   done
#
# A `git` wrapper earlier on PATH counts the git processes berth itself starts (its parent is the
# berth binary; git's own children and hooks pass through) and, at call K, kills berth with
# SIGKILL before that git runs: `alone` kills the berth process only, `group` its whole process
# group (berth is started in a session of its own). `int`, `term` and `hup` send that signal to
# berth's whole process group instead, as a terminal's Ctrl-C does, and let the git run. berth
# runs git by a PATH lookup at every call, so the wrapper sees each one.
#
# `group` kills at the first call from K on at which berth's group holds a process besides berth
# and this git (a git call running beside it, in berth's group): where there is none, killing
# the group kills what killing berth alone does, which the `alone` loop checks at each call (a
# git berth started in a group of its own dies with it in both: its parent-death signal). The
# call it was killed at is FAULT_CALL (K in the other modes): the loops go on from there.

# The kill loops visit every git call (CRASH_STRIDE 1; the Ctrl-C loops: refine_next, below).
# BERTH_TEST_CRASH_STRIDE=N visits every Nth instead, for a quick look by hand; no test preset
# sets it. (common.sh has read it.)
[[ $CRASH_STRIDE =~ ^[1-9][0-9]*$ ]] || { echo "BERTH_TEST_CRASH_STRIDE: not a count: $CRASH_STRIDE" >&2; exit 1; }

FAULT_DIR=$T/git-fault
mkdir -p "$FAULT_DIR/bin"
REAL_GIT=$(command -v git)
# Shell builtins only, in dash where there is one (it runs at every git call: bash's start-up
# nearly doubled the cost of a wrapped command): the call's number is the first free name
# calls/N, taken atomically with noclobber (berth may run git calls side by side). (POSIX sh: a
# failed redirection of `:` would end the shell, so `true`; kill takes no `--`.)
FAULT_SHELL=/bin/bash
[[ -x /bin/dash ]] && FAULT_SHELL=/bin/dash
cat >"$FAULT_DIR/bin/git" <<SH
#!$FAULT_SHELL
if [ -n "\${FAULT_AT:-}" ] && [ /proc/\$PPID/exe -ef "$BERTH_BIN" ]; then
  set -C
  n=1
  until { true >"$FAULT_DIR/calls/\$n"; } 2>/dev/null; do n=\$((n + 1)); done
  fire=no
  if [ "\$FAULT_MODE" = group ]; then
    if [ "\$n" -ge "\$FAULT_AT" ]; then
      read -r _ _ _ _ pgid _ </proc/\$PPID/stat
      for stat in /proc/[0-9]*/stat; do
        { read -r pid _ _ _ group _ <"\$stat"; } 2>/dev/null || continue
        if [ "\$group" = "\$pgid" ] && [ "\$pid" != "\$PPID" ] && [ "\$pid" != \$\$ ]; then
          # The first call to find one kills (two may find one at once).
          { true >"$FAULT_DIR/fired"; } 2>/dev/null && fire=yes
          break
        fi
      done
    fi
  elif [ "\$n" -eq "\$FAULT_AT" ]; then
    fire=yes
  fi
  if [ -n "\${FAULT_SCAN:-}" ]; then
    # (count_git_calls with FAULT_SCAN, for the Ctrl-C loops: each call at which berth's group
    # holds a process besides berth, which a signal to the group would reach too.)
    read -r _ _ _ _ pgid _ </proc/\$PPID/stat
    for stat in /proc/[0-9]*/stat; do
      { read -r pid _ _ _ group _ <"\$stat"; } 2>/dev/null || continue
      if [ "\$group" = "\$pgid" ] && [ "\$pid" != "\$PPID" ] && [ "\$pid" != \$\$ ]; then
        true >"$FAULT_DIR/shared/\$n"
        break
      fi
    done
  fi
  if [ \$fire = yes ]; then
    printf '%s\n' "\$n" >|"$FAULT_DIR/killed-call"
    printf '%s\n' "\$*" >|"$FAULT_DIR/killed-at"
    sig=
    case "\$FAULT_MODE" in int) sig=INT ;; term) sig=TERM ;; hup) sig=HUP ;; esac
    if [ -n "\$sig" ]; then
      # As a terminal's Ctrl-C (or a hang-up, a TERM to the job): the signal to berth's whole
      # process group, and this git goes on (when it is in a group of its own, as it must be).
      read -r _ _ _ _ pgid _ </proc/\$PPID/stat
      kill -\$sig -"\$pgid"
      exec "$REAL_GIT" "\$@"
    fi
    if [ "\$FAULT_MODE" = group ]; then
      read -r _ _ _ _ pgid _ </proc/\$PPID/stat
      kill -9 -"\$pgid"
    else
      kill -9 "\$PPID"
    fi
    exit 137
  fi
fi
exec "$REAL_GIT" "\$@"
SH
chmod +x "$FAULT_DIR/bin/git"

# crash_at_git_call K MODE BERTH-ARGS...: run `berth BERTH-ARGS` in a session of its own with the
# wrapper on PATH, killed (MODE alone|group) at its K-th git call (group: the first from K on that
# runs beside another process of berth's group). Returns 0 when it was killed (FAULT_CALL is the
# call's number, $FAULT_DIR/killed-at names it), 1 when the command finished first (its status in
# $FAULT_DIR/status, its output in $FAULT_DIR/out and $FAULT_DIR/err, its git calls counted by
# fault_calls).
crash_at_git_call() {
  local k=$1 mode=$2 status=0
  shift 2
  rm -rf "$FAULT_DIR/calls" "$FAULT_DIR/killed-at" "$FAULT_DIR/killed-call" "$FAULT_DIR/fired"
  mkdir "$FAULT_DIR/calls"
  [[ -z ${FAULT_SCAN:-} ]] || { rm -rf "$FAULT_DIR/shared" && mkdir "$FAULT_DIR/shared"; }
  FAULT_CALL=$k
  # (The braces keep bash's "Killed" notice out of the test's output.)
  {
    FAULT_AT=$k FAULT_MODE=$mode FAULT_SCAN=${FAULT_SCAN:-} PATH="$FAULT_DIR/bin:$PATH" \
      setsid -w "$BERTH_BIN" "$@" >"$FAULT_DIR/out" 2>"$FAULT_DIR/err"
  } 2>/dev/null || status=$?
  echo "$status" >"$FAULT_DIR/status"
  [[ -e $FAULT_DIR/killed-at ]] || return 1
  FAULT_CALL=$(<"$FAULT_DIR/killed-call")
  # No git of the killed command may run on (it would change the state under the checks).
  wait_for_no_git_of "$T"
  return 0
}

# fault_calls: how many git calls the last crash_at_git_call's command made (all of them, when it
# finished).
fault_calls() {
  find "$FAULT_DIR/calls" -type f | wc -l
}

# git_processes_in DIR: the pids of git processes whose working directory lies under DIR.
git_processes_in() {
  local pid
  for pid in $(pgrep -x git || true); do
    [[ $(readlink "/proc/$pid/cwd" 2>/dev/null) == "$1"* ]] && echo "$pid"
  done
  return 0
}

# Wait (up to 5 s) until no git process works under DIR any more.
wait_for_no_git_of() {
  local i
  for ((i = 0; i < 100; i++)); do
    [[ -z $(git_processes_in "$1") ]] && return 0
    sleep 0.05
  done
  echo "a git process of the killed command is still running:" >&2
  git_processes_in "$1" | xargs -r ps -o pid,args -p >&2 || true
  return 1
}

# ---- the state of one workspace, for the crash loops ------------------------------------------
# (Run once per kill, each of them hundreds of times: bash itself reads the files, and a git or
# berth process runs only where nothing else can answer.)

# workspace_state NAME: what berth and git hold of workspace NAME, in the words the crash loops
# compare: "whole" (a ready record, its branch, its directory), "gone" (no record, no branch, no
# worktree of git's at its place), or "between: ..." naming what is there.
workspace_state() {
  local name=$1 common record state=none branch=no dir=no json d
  common=${FAULT_COMMON:-$(git rev-parse --path-format=absolute --git-common-dir)}
  record=$common/berth/workspaces/$name.json
  if [[ -f $record ]]; then
    json=$(<"$record")
    [[ $json =~ \"state\":\ *\"([a-z_]+)\" ]] && state=${BASH_REMATCH[1]}
  fi
  git rev-parse -q --verify "refs/heads/berth/$name" >/dev/null && branch=yes
  for d in "$HOME"/berth/*/"$name"; do
    [[ -d $d ]] && dir=yes
  done
  if [[ $state =~ ^(ready|landed)$ && $branch == yes && $dir == yes ]]; then
    echo whole
  elif [[ $state == none && $branch == no && $dir == no &&
    $(git worktree list --porcelain) != *$'\n'"branch refs/heads/berth/$name"$'\n'* ]]; then
    echo gone
  else
    echo "between: record $state, branch $branch, directory $dir"
  fi
}

# doctor_tells_truth NAME [STATE]: `berth doctor` finds no problem of workspace NAME exactly when
# it is whole or gone (nothing but a dead writer's temp file besides), and names one otherwise.
# STATE: workspace_state's answer, when the caller has it already. Sets DOCTOR_CLEAN to yes when
# doctor found nothing at all (then there is nothing for `doctor --repair` to settle).
doctor_tells_truth() {
  local name=$1 state=${2:-} out status=0 others
  [[ -n $state ]] || state=$(workspace_state "$name")
  out=$(berth --json doctor 2>/dev/null) || status=$?
  local flat=${out//[[:space:]]/} # (names hold no white space)
  DOCTOR_CLEAN=no
  [[ $status == 0 && $flat == *'"problems":[]'* ]] && DOCTOR_CLEAN=yes
  if [[ $state == whole || $state == gone ]]; then
    others=${flat//\"code\":\"stale_temp_file\"/}
    [[ $flat == *'"problems":['* && $others != *'"code":'* ]] || {
      echo "doctor finds problems in a settled state ($state): $out" >&2
      return 1
    }
  else
    [[ $status == 1 && $flat == *"\"name\":\"$name\""* ]] || {
      echo "doctor does not see what the kill left ($state): exit $status, $out" >&2
      return 1
    }
  fi
}

# ---- a fork of three attempts, for pick's loops ----------------------------------------------
# (t_pick_killed_at_each_git_call, t_pick_interrupted_at_each_git_call: each round makes the fork
# TASK anew, picks TASK-1, checks what is left, then clears it.)

# attempt_digests TASK: digest[I] the files of attempt TASK-I (I = 1..3; the caller declares
# `declare -A digest`), taken in the first round only: every round makes the same files, and
# each digest reads them all.
attempt_digests() {
  local i
  for i in 1 2 3; do
    [[ -n ${digest[$i]:-} ]] || digest[$i]=$(tree_digest "$(berth path "$1-$i")")
  done
}

# clear_fork TASK: back to no fork: what is left of TASK's attempts discarded, the trash emptied.
# (The fork's discard, one command for all, with no snapshot: the trash is emptied next. Then
# each attempt that is still there on its own: one `restore` brought back is no attempt of the
# fork any more.)
clear_fork() {
  local i left=no
  for i in 1 2 3; do
    [[ $(workspace_state "$1-$i") == gone ]] || left=yes
  done
  [[ $left == no ]] || berth discard --force --no-trash "$1" >/dev/null 2>&1 || true
  for i in 1 2 3; do
    [[ $left == no || $(workspace_state "$1-$i") == gone ]] ||
      berth discard --force --no-trash "$1-$i" >/dev/null 2>&1
  done
  clear_trash
}

# clear_trash: every trash snapshot dropped (two git processes, whatever their number).
clear_trash() {
  git for-each-ref --format='delete %(refname)' refs/berth/trash/ | git update-ref --stdin
}

# trim_trash: the trash down to each name's newest snapshot, for a loop whose rounds each discard
# into it and check it with `berth doctor`, which reads every snapshot there (a few git calls
# each): each round's doctor read every earlier round's snapshot again (the accept loop's grew
# from 0.05 s to 0.6 s a call). Each snapshot is still read by the next round's doctor, and a
# discard still finds its name's newest snapshot to compare with. Nothing is dropped while a tree
# discarded aside waits in a .trash folder (doctor verifies it against its snapshot).
trim_trash() {
  [[ -z $(find "$HOME/berth" -mindepth 3 -maxdepth 3 -path '*/.trash/*' -print -quit 2>/dev/null) ]] ||
    return 0
  git for-each-ref --sort=-refname --format='%(refname)' refs/berth/trash/ |
    awk '{ name = $0; sub(/\/[^\/]*$/, "", name); if (seen[name]++) print "delete " $0 }' |
    git update-ref --stdin
}

# user_checkout: a digest of the user's checkout (index, status, files), which no crash may touch.
user_checkout() {
  {
    git ls-files -s
    git status --porcelain=v2 --untracked-files=all
    tree_digest .
  } | sha256sum
}

# user_work: the user's own uncommitted work in the checkout (an edit a landing of `gen/` does not
# touch, an untracked file); user_work_reset BASE: the checkout back at BASE, `gen/` gone, that
# work made again (between two landings).
user_work() {
  echo "my own edit" >>README.md
  echo "my notes" >notes.txt
}
user_work_reset() {
  git reset -q --hard "$1"
  rm -rf gen
  user_work
}

# count_git_calls BERTH-ARGS...: run `berth BERTH-ARGS` with the wrapper counting (never killing)
# and print how many git calls it made.
count_git_calls() {
  crash_at_git_call 1000000 alone "$@" || true
  fault_calls
}

# ---- the Ctrl-C loops' calls: every safe point, each boundary exactly ---------------------------
# A signal to berth's group at call K reaches berth alone (while accept or pick runs, each git
# call runs in a process group of its own: GitCallsOwnGroup), and berth's handler only notes it:
# berth reads the note at its safe points only. So a signal at call K stops berth at the first
# safe point after call K, exactly as a signal at any other call before that safe point does: the
# calls come in runs, one run a safe point, in the order of the safe points, and every call of a
# run leaves the same state to check. The loops tell a round's outcome by the line berth prints
# (before the landing, after it, too late), one outcome a run or several neighbouring runs (accept
# stops before the landing at two safe points: once the workspace is held, and once the landing
# is planned; the last calls, a discard with no safe point after it, are all "too late").
#
# refine_start: the loops then visit call 1, every third call (every 3 * CRASH_STRIDE-th) and,
# where two visited calls' outcomes differ, each call between them (each CRASH_STRIDE-th), so
# that each boundary between two outcomes is found exactly: the first run holds call 1, and the
# last call of a run whose outcome differs from the next run's is visited. A run between two runs
# of its own outcome is visited too unless it is shorter than the stride: there is none today
# (accept's two "before" runs are the first one and the one that ends at the landing; pick's
# "after the landing" runs are told apart by what was discarded). The checks of the calls not
# visited are those of the visited calls of their run, on the same state, except where berth's
# handling of the signal depended on what berth was doing when it came: berth waits for each git
# (util/child_process.cpp) with every interrupted wait resumed, and the signal reaches no
# process but berth (a process besides berth in its group would get it too: each call at which
# berth's group held one in the counting run, `FAULT_SCAN=1 count_git_calls`, is visited as
# well).
# refine_next K OUTCOME: after the round at call K: NEXT_CALL is the next call to visit.
refine_start() {
  REFINE_PREV_K=0 REFINE_PREV_OUTCOME="" REFINE_END=0
  REFINE_SHARED=()
  if [[ -d $FAULT_DIR/shared ]]; then
    mapfile -t REFINE_SHARED < <(find "$FAULT_DIR/shared" -type f -printf '%f\n' | sort -n)
  fi
  NEXT_CALL=1
}
# (refine_upto K NEXT: NEXT, or the first call after K before it that berth's group shared.)
refine_upto() {
  local s
  for s in "${REFINE_SHARED[@]}"; do
    ((s > $1 && s < $2)) && echo "$s" && return 0
  done
  echo "$2"
}
refine_next() {
  local k=$1 outcome=$2
  if ((k < REFINE_END)); then
    # In a window between two outcomes: each call up to its end, which was visited already.
    NEXT_CALL=$(refine_upto "$k" $((k + CRASH_STRIDE)))
    ((NEXT_CALL < REFINE_END)) ||
      NEXT_CALL=$(refine_upto "$REFINE_END" $((REFINE_END + 3 * CRASH_STRIDE)))
    return 0
  fi
  if [[ -n $REFINE_PREV_OUTCOME && $outcome != "$REFINE_PREV_OUTCOME" ]] &&
    ((k > REFINE_PREV_K + CRASH_STRIDE)); then
    # Back: each call between the previous visited call and this one.
    REFINE_END=$k NEXT_CALL=$((REFINE_PREV_K + CRASH_STRIDE))
  else
    NEXT_CALL=$(refine_upto "$k" $((k + 3 * CRASH_STRIDE)))
  fi
  REFINE_PREV_K=$k REFINE_PREV_OUTCOME=$outcome
}

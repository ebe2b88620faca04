# t_pick_killed_at_each_git_call with berth's whole process group killed (SIGKILL) instead of berth
# alone, before each git call of the siblings' batched discard at which the group holds a process
# besides berth and that git (one running then dies without its clean-up; elsewhere the two kills
# are one: git_fault_helpers.sh): the same checks. (The snapshots' git calls that run side by side
# run in groups of their own, as every git call of a pick does: today there is no such call.)
FAULT_MODES=group
. "$(dirname "$0")/t_pick_killed_at_each_git_call.sh"

# t_pick_killed_at_each_git_call with berth's whole process group killed (SIGKILL) before each
# git call of the siblings' batched discard instead of berth alone (the snapshots' git calls run
# side by side: those running then die without their clean-up): the same checks.
FAULT_MODES=group
. "$(dirname "$0")/t_pick_killed_at_each_git_call.sh"

# t_new_restore_killed_at_each_git_call with berth's whole process group killed (SIGKILL)
# before each git call of `berth new` and `berth restore` instead of berth alone: the same checks.
FAULT_MODES=group
. "$(dirname "$0")/t_new_restore_killed_at_each_git_call.sh"

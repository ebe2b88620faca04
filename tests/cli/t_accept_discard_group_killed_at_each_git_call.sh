# t_accept_discard_killed_at_each_git_call with berth's whole process group killed (SIGKILL)
# instead of berth alone, before each git call of accept's discard phase at which the group holds
# a process besides berth and that git (elsewhere the two kills are one: git_fault_helpers.sh):
# the same checks.
FAULT_MODES=group
. "$(dirname "$0")/t_accept_discard_killed_at_each_git_call.sh"

// What a berth command killed half-way (kill -9, a crash, a lost machine) leaves, as doctor sees
// and repairs it (docs/crashes.md). Each check returns the problems it found; with Repair::yes it
// settles what it safely can first and returns what is still wrong.
#pragma once

#include "berth/berth.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace berth {

/// Whether the commit `tip` is reachable from one of workspace `name`'s trash snapshots.
bool kept_in_trash(const Project& project, std::string_view name, const std::string& tip);

/// Records a dead berth command left half made or half removed (creating, discarding): with
/// repair they were already finished or undone (recover_interrupted runs first); reported else.
std::vector<Problem> interrupted_commands(const Project& project,
                                          const std::vector<Workspace>& records);

/// `berth/*` branches no record, worktree or snapshot accounts for: a discard killed between
/// removing the tree and deleting the branch left one, and `new`/`restore` of the name then fail
/// with branch_exists. Deleted by repair when the trash keeps their commits.
std::vector<Problem> orphan_branches(const Project& project, const std::vector<Workspace>& records,
                                     Repair repair, std::vector<std::string>& repaired);

/// git lock files (index.lock, HEAD.lock) in workspaces' admin dirs that no process holds open: a
/// git killed with berth left them, and every later git call there fails. Deleted by repair.
std::vector<Problem> stale_locks(const std::vector<Workspace>& records, Repair repair,
                                 std::vector<std::string>& repaired);

/// Temporary files berth's writers left in `<common>/berth/tmp` when killed (their writer is
/// dead). Deleted by repair and by the next command.
std::vector<Problem> stale_temp_files(const Project& project, Repair repair,
                                      std::vector<std::string>& repaired);

/// Finish or undo what berth commands that died left (creating / discarding records, dead
/// runs). Takes the registry lock: never call it while holding it.
Result<void> recover_interrupted(const Project& project);

} // namespace berth

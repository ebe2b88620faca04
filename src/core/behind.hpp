// Things changed behind berth's back: a worktree removed or pruned with git, a workspace branch
// deleted, a trash ref whose objects are gone, shared config that breaks the checkout or berth.
// Each is found here for `status`, `list` and `doctor`, and repaired where the repair is
// unambiguous; doctor() calls these one by one.
#pragma once

#include "berth/berth.hpp"
#include "core/porcelain.hpp"

#include <optional>
#include <string>
#include <vector>

namespace berth {

/// The problem of a workspace whose directory is gone (`directory_missing`: git still has its
/// worktree; `worktree_missing`: git has none any more), or nullopt. `listed` is git's
/// `worktree list`.
std::optional<Problem> gone_problem(const Workspace& w, const std::vector<WorktreeEntry>& listed);

/// doctor --repair, once the project lock is released: discard each named workspace whose
/// directory is gone (its branch's commits go to the trash as with `berth discard`), moving its
/// problems from `report.problems` to `report.repaired`.
void discard_gone(const Project& project, const std::vector<std::string>& names,
                  DoctorReport& report);

} // namespace berth

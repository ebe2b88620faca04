// Small shared pieces of the workspace modules: how berth calls git on the repository and inside
// one workspace.
#pragma once

#include "berth/berth.hpp"
#include "core/git.hpp"

#include <string>
#include <vector>

namespace berth {

/// A git call on the repository itself (refs, worktree admin), independent of any work tree.
GitCall repo_call(const Project& project, std::vector<std::string> args);
/// A git call inside a workspace, through the git dir and work tree berth's registry recorded.
GitCall workspace_call(const Workspace& workspace, std::vector<std::string> args);

int64_t unix_now();

/// The identity berth's own bookkeeping commits carry (snapshots), so they never depend on the
/// user having configured one.
std::map<std::string, std::optional<std::string>> berth_identity();

} // namespace berth

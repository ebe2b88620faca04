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

/// Re-lock the workspace's worktree with a new reason, if berth holds its lock (never a lock the
/// user placed). The reason of an idle workspace is `idle_lock_reason`.
void set_lock_reason(const Project& project, const Workspace& workspace, const std::string& reason);
std::string idle_lock_reason(const Workspace& workspace);

/// The identity berth's own bookkeeping commits carry (snapshots), so they never depend on the
/// user having configured one.
std::map<std::string, std::optional<std::string>> berth_identity();

} // namespace berth

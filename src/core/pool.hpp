// The warm pool: settled, detached worktrees of the project, ready to become workspaces with a
// rename and a ref update instead of a full checkout.
#pragma once

#include "berth/berth.hpp"

#include <optional>
#include <string>
#include <vector>

namespace berth {

struct TakenSlot {
  std::string id;      ///< the slot's id (its shadow index goes by it: hand_over_shadow)
  std::string git_dir; ///< the slot's worktree admin dir (now the workspace's)
  std::string commit;  ///< what its files and index hold
  /// setup.clone / setup.link paths made in it ahead of time (done: set-up skips them)
  std::vector<std::string> prepared;
};

/// Move a ready slot to `path` (under the project lock, taken here: call it without), then,
/// outside the lock (the user's reference-transaction hook runs), create `branch` at `start` and
/// attach the slot's HEAD to it (no file is touched), lock it with `lock_reason`. None when no
/// slot is ready. On failure the tree at `path` is the caller's to undo.
Result<std::optional<TakenSlot>> take_pool_slot(const Project& project, const std::string& path,
                                                const std::string& branch, const std::string& start,
                                                const std::string& lock_reason);

/// Where the pool keeps its records and locks: <common>/berth/pool (the trash lock too).
std::string pool_records_dir(const Project& project);

/// When the project has no helper executable (Project::helper) for the background work its
/// config asks for (pool.size > 0, watch.enabled): the warning create and discard report.
std::optional<std::string> missing_helper_warning(const Project& project);

} // namespace berth

// The warm pool: settled, detached worktrees of the project, ready to become workspaces with a
// rename and a ref update instead of a full checkout.
#pragma once

#include "berth/berth.hpp"
#include "util/file_lock.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace berth {

struct GcReport;

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

/// Waits until no background filler of the project is at work, then keeps any from starting a
/// pass while the returned lock lives (`forget` removes the repository under it).
tl::expected<util::FileLock, std::string> hold_pool_fillers(const Project& project);

/// gc's pool orphans (docs/gc.md), each reported in `report` as removed (with `dry_run`: would be)
/// or skipped with the reason: a ready slot whose directory is gone, or whose base commit is on no
/// branch, tag or remote branch any more (the branch it was made from was deleted or rewritten); a
/// half-made slot whose filler died; a folder in one of the project's `.pool` folders no record
/// claims; and a slot, in the `.pool` folder of a sibling of the project's default root, of a
/// repository that no longer exists. A slot a live filler is making is skipped. The real run
/// decides again under the project lock. `out_of_time` stops it early (the automatic pass).
Result<void> collect_pool_orphans(const Project& project, bool dry_run, GcReport& report,
                                  const std::function<bool()>& out_of_time);

/// When the project has no helper executable (Project::helper) for the background work its
/// config asks for (pool.size > 0, watch.enabled): the warning create and discard report.
std::optional<std::string> missing_helper_warning(const Project& project);

} // namespace berth

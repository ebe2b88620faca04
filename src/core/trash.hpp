// The trash: a discarded workspace's complete state as one commit, kept under
// refs/berth/trash/<slug>/<unix-time> until gc expires it.
//
// The snapshot commit's tree is the work tree (tracked and untracked files, not ignored ones). Its
// parents are HEAD, a commit holding the staged state (so restore brings the index back too) and,
// when it differs from HEAD, the branch tip: every commit the workspace made stays reachable.
#pragma once

#include "berth/berth.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace berth {

enum class Content { work_tree, commits_only };

/// Save `workspace` to the trash. With Content::commits_only (its directory is gone or cannot be
/// trusted) only its commits are kept.
Result<Snapshot> take_snapshot(const Project& project, const Workspace& workspace, Content content);

/// The snapshot ref prefix for a workspace name.
std::string trash_prefix(std::string_view name);

} // namespace berth

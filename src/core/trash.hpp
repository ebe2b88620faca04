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

/// The ignored files of a work tree (git's own rules) and their total size.
std::pair<uint64_t, uint64_t> count_ignored(const std::string& git_dir,
                                            const std::string& work_tree);

/// Where `discard` moves a tree it leaves to the background deleter: `<slug>.<leaf>.<pid>` in
/// `dir`, `leaf` being the snapshot ref's last component (its time), so the deleter knows which
/// snapshot the tree belonged to.
std::string aside_name(std::string_view name, const std::string& snapshot_ref);
/// Before a tree moved aside is deleted: check its snapshot against a full look at the tree (the
/// snapshot was taken from what the watcher reported: a change it could not see, such as a
/// write through a hard link from outside, would otherwise be lost) and complete the snapshot
/// if anything differs; with `count_ignored_files`, count its ignored files and record them with
/// the snapshot (shown by `restore --list`). Nothing when no snapshot matches the tree's name.
/// True only when the snapshot is now known to hold the whole tree (it matched the full look, or
/// was completed from it): only then may a caller that must be sure (`doctor --repair`) delete it.
bool settle_aside(const Project& project, const std::string& aside_path, bool count_ignored_files);

} // namespace berth

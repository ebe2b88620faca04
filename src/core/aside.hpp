// Trees discard moved aside into a `.trash` folder (aside.cpp).
#pragma once

#include "berth/berth.hpp"
#include "util/file_lock.hpp"

#include <optional>
#include <string>

namespace berth {

/// Where discarded trees wait for deletion or recycling: <workspace-root>/.trash.
std::string trash_dir(const Project& project);

/// Why the tree moved aside to `path` may not be deleted yet ("" when it may): a record claims
/// it, or its snapshot lost objects that a full look at the tree cannot write again. Every
/// deletion of such a tree (discard, the background deleter, `doctor --repair`) asks.
std::string aside_may_go(const Project& project, const std::string& path);
/// Delete a tree `discard` moved aside into a `.trash` folder (once `aside_may_go` agrees): through
/// git (which removes its admin dir too) or, when git refuses (its `.git` replaced by a folder,
/// say), by hand: the tree, then the admin dir whose `gitdir` names it (berth's lock on it keeps
/// `git worktree prune` away, and its HEAD would keep the branch name taken). Never anything
/// outside a `.trash` folder.
/// SnapshotChecked::yes: its snapshot was checked whole after its ref existed (and after any gc
/// running then had ended; a later gc sees the ref) and a full look found the tree exactly as
/// saved: only the record claims are asked, not the snapshot again (discard's own deletion).
enum class SnapshotChecked { no, yes };
bool remove_aside(const Project& project, const std::string& path,
                  SnapshotChecked checked = SnapshotChecked::no);

/// Whoever settles and deletes trees in a `.trash` folder (the background deleter, `pool fill`,
/// `discard` deleting its own tree, `doctor --repair`) holds this lock meanwhile: one at a time.
Result<util::FileLock> lock_trash(const Project& project);
/// The same lock if nobody holds it now (none: a deleter is at work).
std::optional<util::FileLock> try_lock_trash(const Project& project);

/// The admin dir (<common>/worktrees/<id>) whose `gitdir` names the tree at `path`, or "".
std::string admin_dir_naming(const Project& project, const std::string& path);

} // namespace berth

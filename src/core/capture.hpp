// A workspace's state as git objects, without touching its index or files: the tree of its work
// tree (tracked and untracked, not ignored) and of its staged state.
#pragma once

#include "berth/berth.hpp"
#include "core/porcelain.hpp"
#include "core/shadow.hpp"
#include "core/tree_edit.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace berth {

struct Captured {
  std::string head; ///< commit checked out
  std::string head_tree;
  std::string index_tree; ///< staged state (head_tree when the index has unresolved conflicts)
  std::string work_tree;  ///< everything in the work tree, as `git add -A` would record it
  /// Submodules and nested repositories with work in them, as status named them (their files
  /// are not in work_tree; a nested repository without a commit is not in it at all).
  std::vector<NestedChange> nested;
  /// Changed paths that are a FIFO, a socket or a device (an agent's `mkfifo` over a file, say):
  /// git cannot record them, so work_tree keeps what the index had there. No content is lost
  /// (such files hold none), but a command that lands or commits the work refuses them.
  std::vector<std::string> unrecordable;
  /// The files work_tree has and index_tree has not (regular files only: what the trash keeps
  /// as they are on disk; `name` holds the path), when the capture knows them without asking
  /// git (it staged only the changed paths); nullopt otherwise.
  std::optional<std::vector<TreeEntry>> added;

  bool clean() const { return work_tree == head_tree; }
};

/// hostile_file (exit 5) naming `c.unrecordable`, when there are any: what commit, diff, sync and
/// accept say rather than git's "can only add regular files".
Result<void> refuse_unrecordable(const Workspace& workspace, const Captured& c);

/// Build the trees through a scratch copy of the workspace's index: the copy keeps the stat data,
/// so only files that changed are hashed, and the workspace's own index is never written.
/// `counts`: whether the look takes the commit counts (and so keeps the verdict and the capture
/// for later commands); a discard skips them.
Result<Captured> capture(const Project& project, const Workspace& workspace,
                         Counts counts = Counts::take);

/// capture of several workspaces (a discard's siblings, a compare's attempts): each one's status
/// side by side, then what they share done once for all: their HEADs' trees and the folders the
/// changed paths are in read in one `cat-file --batch`, the new trees written in one
/// `hash-object` per folder depth. One result per workspace (the same workspace twice is
/// captured once each, one after the other).
std::vector<Result<Captured>> capture_many(const Project& project,
                                           const std::vector<const Workspace*>& workspaces,
                                           Counts counts = Counts::take);

/// The work tree's tree the sure way, looking at every file (no watcher): what the background
/// deleter checks a snapshot against before it deletes the tree.
Result<std::string> capture_work_tree_fully(const Project& project, const Workspace& workspace);

/// A commit holding `tree` on top of `parent`, made with the user's identity when git has one
/// and berth's otherwise (`author`, when given, names its author: GIT_AUTHOR_*; given as the
/// whole berth_identity(), git is not asked for the user's). It is not put on any ref.
Result<std::string>
make_commit(const Project& project, const std::string& tree,
            const std::vector<std::string>& parents, const std::string& message,
            const std::map<std::string, std::optional<std::string>>& author = {});

/// What `git status --porcelain=v2 -z --branch --untracked-files=all` says now, told from what it
/// said before (`before`) while the index, HEAD, configuration and ignore rules stayed the same
/// and only the work-tree paths `changed` may differ: `index` holds the index's entries of those
/// paths (the ones it has), `now` their work-tree entries as git stages them (nullopt: no file);
/// a changed path in neither `now` nor `before` is one git ignores. Each changed path's line is
/// made anew (its index side kept, its work-tree side compared), the others are kept as they
/// were. Nullopt where that cannot be told this way: a changed path that is a rename, a
/// conflict, a staged deletion, an intent-to-add entry or a submodule, or that `now` lacks.
std::optional<std::string> restate_status(const std::string& before,
                                          const std::vector<std::string>& changed,
                                          const std::map<std::string, TreeEntry>& index,
                                          const PathChanges& now);

/// Whether git knows who the user is (user.name / user.email or the environment).
bool has_identity(const Project& project);

} // namespace berth

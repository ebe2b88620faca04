// Review internals shared with accept.
#pragma once

#include "berth/berth.hpp"
#include "core/capture.hpp"

#include <string>
#include <vector>

namespace berth {

/// Files changed between two tree-ish objects (renames detected), with line counts.
Result<std::vector<FileChange>> changes_between(const Project& project, const std::string& from,
                                                const std::string& to);

/// A workspace's diff without its files and patch: its current state captured and where its
/// own change starts (from, to_tree, head, uncommitted, nested). fill_diffs adds the rest.
/// (`options.paths` is not applied: diff_workspace does that.)
Result<Diff> diff_ends(const Project& project, std::string_view name, const DiffOptions& options);
/// diff_ends of workspace `w` whose state `now` was captured already (compare captures all its
/// attempts together: capture_many).
Result<Diff> diff_ends_of(const Project& project, const Workspace& w, const Captured& now,
                          const DiffOptions& options);

/// The files (and, for those asking for a patch, the patches) of several diffs made by
/// diff_ends: each pair (from, to) once, from the diff cache (DiffCache) when it was diffed
/// before, the others in one `rev-parse` and one `diff-tree --stdin` for all of them (raw,
/// numstat and patch in one pass), then kept in the cache.
Result<void> fill_diffs(const Project& project, const std::vector<Diff*>& diffs);

/// Where a workspace's own change starts: its base, or after `sync` the last target merged in.
Result<std::string> review_base(const Project& project, const Workspace& workspace,
                                const std::string& head);

/// The workspace, refusing when its directory is gone.
Result<Workspace> usable_workspace(const Project& project, std::string_view name);

/// Commit the work tree's state on the workspace's branch (no hooks: this is berth's bookkeeping).
/// Returns "" when there was nothing to commit. `files` receives what the commit changed.
Result<std::string> commit_work_tree(const Project& project, const Workspace& workspace,
                                     const std::string& message, std::vector<FileChange>* files);

} // namespace berth

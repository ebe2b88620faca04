// Workspace roots: the folders workspaces live in. The configured `workspace_root` may change
// (or be given for one command with `-c workspace_root=DIR`), so each record keeps the root its
// workspace was made under, and whatever deletes trees (discard, the background deleter, doctor)
// knows every root in use, not only today's.
#pragma once

#include "berth/berth.hpp"

#include <string>
#include <vector>

namespace berth {

/// The root `workspace` lives under: the one its record names, or for a record written before
/// berth kept it, its path's parent when that is the configured or the default root. "" when
/// neither: such a workspace is not berth's to delete.
std::string workspace_root_of(const Project& project, const Workspace& workspace);

/// Is `root` one berth chose itself: today's configured or default root, or an earlier berth's
/// default (Project::previous_workspace_roots)?
bool is_standard_root(const Project& project, const std::string& root);

/// May berth delete the workspace's directory? Only a direct child of the root its record names
/// (never the root itself, the project's checkout or git dir, or anything holding them).
bool deletable_workspace_path(const Project& project, const Workspace& workspace);

/// Every root in use: the configured and default ones, each record's, and those whose `.trash`
/// holds a discarded tree (remembered by note_trash_root). Lexically normal, no duplicates.
std::vector<std::string> workspace_roots(const Project& project);

/// Why berth must not act on the record `w` ("" when it may): its name disagrees with its file
/// (`w.invalid`); its path is not absolute and normal, not a direct child of its root named
/// after it, or is (or holds) the project; its root is "/" or relative; or its root is none of
/// the roots berth knows (the configured and default ones, those whose trash berth noted) while
/// git does not vouch for it either (this repository's admin dir `w.git_dir` naming the path),
/// and the path exists: a hand-edited record (`"path": "/"`) must never make berth walk or
/// touch the user's files. Cheap: no git call.
std::string record_problem(const Project& project, const Workspace& w);

/// Under the project lock: remember that `root`'s `.trash` holds a tree for the background
/// deleter (nothing to remember for the default root, always looked at; the configured one may
/// be configured for one command only).
void note_trash_root(const Project& project, const std::string& root);

/// Under the project lock: forget the remembered roots whose `.trash` is gone or empty.
void forget_empty_trash_roots(const Project& project);

} // namespace berth

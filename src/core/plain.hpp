// Plain folders (docs/plain.md, ADR 0011): a directory that is not a git repository gets a private
// repository outside it, under <data_home>/berth/plain/<id>/ (bare), whose workspaces are
// worktrees as for any repository. The folder is read (snapshots) by every command and written
// only by accept.
#pragma once

#include "berth/berth.hpp"
#include "core/git.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace berth {

/// Where a plain folder's private repository is.
struct PlainLocation {
  std::string folder;     ///< the folder's real path now
  std::string common_dir; ///< its private (bare) repository
  std::string moved_from; ///< the folder's recorded path when it was found by device and inode
};

/// The plain project `cwd` (a real path) is in: the nearest folder above it (itself included)
/// that has a private repository, unless a `.git` comes first (a repository inside a plain folder
/// is a repository). With `force`, `cwd` itself (made when missing). Else, with `create` and no
/// git repository around, `cwd`'s (made). Else a folder that moved (the device and inode its
/// marker recorded, its recorded path gone). nullopt: not a plain project (ask git).
Result<std::optional<PlainLocation>> find_plain(const std::string& cwd, bool create, bool force,
                                                bool inside_git);
/// The folder a private repository belongs to (its marker), "" when `common_dir` is not one.
std::string plain_folder_of(const std::string& common_dir);

/// The folder as it is now, as a commit on the private repository's branch (a new commit only
/// when something changed): the base of a new workspace. The private index keeps stat data, so
/// only changed files are read.
Result<std::string> plain_snapshot(const Project& project);
/// A private repository that holds nothing yet (no snapshot) is removed with its link: the `new`
/// that made it was refused. Anything else is left alone.
void drop_unborn_plain(const std::string& common_dir, const std::string& folder);

/// accept for a plain project (the workspace is held by the caller): writes the workspace's change
/// into the folder, refusing (or with options.merge merging) files the user changed since the
/// base; journaled in <berth>/plain-accept.json.
Result<Accepted> plain_accept(const Project& project, const Workspace& w,
                              const AcceptOptions& options, Accepted a);

/// A git call on the plain folder (its private repository as git dir, the folder as work tree,
/// plain.ignore as info/exclude, no hook of the user's): what is ignored there, what the
/// snapshot leaves out. Reads only.
GitCall plain_folder_call(const Project& project, std::vector<std::string> args);

/// gc (docs/gc.md, docs/plain.md): a plain folder's private repository that nothing of berth's is
/// left in (no workspace, no trash snapshot, no interrupted accept) and whose folder is gone, or
/// was not used for `idle_seconds`. Its pool slots go with it.
struct PlainOrphan {
  std::string folder;             ///< the folder its marker names
  std::string repository;         ///< the private repository
  std::vector<std::string> slots; ///< its warm pool slots' trees
  std::string reason;             ///< why it goes, or (skipped) why it stays
  bool skipped = false;           ///< its folder is gone but something of berth's is left
};
/// Every private repository but `except`'s (the project gc runs in), in name order. Read only.
Result<std::vector<PlainOrphan>> plain_orphans(const std::string& except, int64_t idle_seconds,
                                               int64_t now);
/// Removes one (its link, pool slots, repository), checked again under its lock: false when
/// something of berth's appeared meanwhile (nothing removed).
Result<bool> remove_plain_orphan(const PlainOrphan& orphan, int64_t idle_seconds, int64_t now);

/// The note front ends show before a command when an accept into the folder was interrupted
/// ("" when none).
std::string plain_pending_accept(const Project& project);

/// doctor: an interrupted plain accept (finished under --repair) and a moved folder (re-linked
/// under --repair).
Result<void> plain_doctor(const Project& project, Repair repair, DoctorReport& report);

} // namespace berth

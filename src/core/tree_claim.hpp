// Which tree a workspace record may delete, and re-linking records after the repository moved.
//
// A record is a JSON file anyone can edit (or a crash can leave stale, or a moved repository can
// leave pointing at the old place): it never proves on its own that a tree is berth's to delete.
// Before any deletion of a tree (discard, a rolled-back creation, the background deleter,
// `doctor --repair`), git's own links must agree with it.
#pragma once

#include "berth/berth.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace berth {

/// Real paths resolved once each (realpath(3)), for checks that compare every record's paths
/// with a tree's: one claim, or several under one hold of the project lock (a pick's siblings),
/// where nothing is expected to move meanwhile.
class RealPaths {
public:
  std::optional<std::string> of(const std::string& path);

private:
  std::map<std::string, std::optional<std::string>> known_;
};

/// Why the record `w` does not authorise deleting the tree at `w.path` ("" when it does): the
/// tree is (or holds) the main checkout, the repository or a workspace root; `w.git_dir` is not
/// an admin dir of this repository; another record names the same tree or admin dir; git's admin
/// dir for the tree is another one, or `w.git_dir` is git's admin dir of another tree. `records`
/// are all the project's records (`w` among them or not). An empty `w.git_dir` (a creation that
/// never got one) skips the checks that need it. `memo`: real paths already resolved (else
/// resolved for this one call).
std::string tree_claim_problem(const Project& project, const std::vector<Workspace>& records,
                               const Workspace& w, RealPaths* memo = nullptr);
/// The admin dir git made for `w`'s tree when a creation was cut short before its record learnt
/// it (`w.git_dir` empty: killed right after `git worktree add`): the only admin dir whose
/// `gitdir` names the tree, and no other record's. "" when there is none, or no single one.
std::string creation_admin_dir(const Project& project, const std::vector<Workspace>& records,
                               const Workspace& w);
/// The same, as the refusal every deletion path returns: Error{record_mismatch} (exit 5).
Result<void> may_delete_tree(const Project& project, const std::vector<Workspace>& records,
                             const Workspace& w, RealPaths* memo = nullptr);
/// Why the tree moved aside to `path` by discard may not be deleted ("" when it may): no record
/// may name it, hold it or have its admin dir, and it must not hold the project.
std::string aside_claim_problem(const Project& project, const std::string& path);

/// The directory of `w` is there but its recorded admin dir is not (a repository moved, or its
/// admin dir removed by hand): status says "unlinked", and nothing may delete it.
bool unlinked(const Workspace& w);
/// Error{record_mismatch} naming `berth doctor --repair` when `w` is unlinked.
Result<void> refuse_unlinked(const Workspace& w);
/// What to do about an unlinked workspace whose admin dir was deleted (what doctor, gc and the
/// refusal above say): save what is needed, delete the directory by hand, then discard it.
std::string unlinked_advice(const Workspace& w);

/// Whether a record's admin dir lies outside this repository's `worktrees/` (the repository was
/// moved or copied since it was recorded).
bool needs_relink(const Project& project, const std::vector<Workspace>& records);

/// Whether the tree at `tree`, recorded with the admin dir `git_dir`, is another repository's:
/// `git_dir` lies outside this repository, the admin dir is there, names the tree back, and the
/// tree's
/// `.git` file names it. This repository is then a copy (`cp -a`, the original kept) and the
/// record came with it; re-linking would take the tree from the repository it belongs to.
bool owned_by_another_repository(const Project& project, const std::string& git_dir,
                                 const std::string& tree);
/// Removes this repository's admin dirs for `tree` (copied with the repository, naming a tree
/// another repository owns): git's bookkeeping only, never the tree.
void drop_copied_admin_dirs(const Project& project, const std::string& tree);

/// The admin dir a tree has in this repository as it is now, when git's links agree both ways
/// (its `gitdir` names the tree's `.git`, the tree's `.git` file names it) and it is the only one;
/// "" otherwise. What a moved repository's records and pool slots are re-linked to.
std::string moved_admin_dir(const Project& project, const std::string& tree);

/// Where the record `w`, whose admin dir lies outside this repository, is now: its tree with the
/// admin dir git has for it (or, when its directory is gone too, the tree that moved with the
/// repository, found by git's admin dir of the same name), when git's links prove it both ways
/// and no other record names them. Nullopt otherwise.
std::optional<Workspace> moved_workspace(const Project& project,
                                         const std::vector<Workspace>& records, const Workspace& w);

/// Where the tree of `w`, recorded inside the checkout of a repository that has moved since (a
/// workspace root such as .worktrees), is now: the same place inside today's checkout, when a
/// directory is there and git has an admin dir of the record's id. "" otherwise. git's links to
/// it still name the old place until `git worktree repair PATH`.
std::string moved_with_checkout(const Project& project, const Workspace& w);

struct Relinked {
  std::vector<std::string> relinked; ///< what was re-linked (one line each)
  std::vector<Problem> problems;     ///< records that could not be
};
/// Point records whose admin dir lies outside this repository at the admin dir git has for their
/// tree, when git's links prove it is theirs (the admin dir's `gitdir` names the tree's `.git`,
/// and the tree's `.git` file names that admin dir or the recorded, vanished one). With
/// Repair::yes a `.git` file still naming the old place is fixed first (`git worktree repair`).
/// Call under the project lock.
Relinked relink_moved(const Project& project, std::vector<Workspace>& records, Repair repair);

} // namespace berth

// Repositories inside a workspace: its submodules, and repositories an agent made or cloned in
// it. Their files are not in the workspace's own tree (git records a submodule as a gitlink, a
// commit id, and a repository without a commit not at all), so the trash keeps them on their
// own: what git's status names is captured here, kept alive in the project's object database
// and put back on restore (docs/decisions/0003, "Nested repositories"). Also the snapshot's
// untracked files as they were on disk, which the same restore writes back.
#pragma once

#include "berth/berth.hpp"
#include "core/capture.hpp"
#include "core/porcelain.hpp"

#include <optional>
#include <string>
#include <vector>

namespace berth {

/// The git dir of the repository whose work tree is `path` (relative) in the workspace: its
/// `.git` folder, or where its `.git` file points; "" when there is none.
std::string nested_git_dir(const Workspace& workspace, const std::string& path);

/// Point each submodule of the workspace (named in its `.gitmodules`) back at its module
/// repository (<admin>/modules/<name>) with absolute links, where `git submodule` left relative
/// ones that a move of the tree (discard's move into .trash/) or of the repository broke: the
/// submodule's `.git` file (rewritten atomically) and the module's `core.worktree`. Untouched when
/// both already lead to each other; nothing at all without a `.gitmodules`. Only paths that are
/// plain, relative and free of symlinks inside the workspace; nested submodules (of submodules)
/// are left as they are. The submodule paths re-linked.
std::vector<std::string> repair_submodule_links(const Workspace& workspace);

/// The paths a capture stages: `summary.unstaged_paths` without the nested repositories that
/// have no commit yet (git can stage neither their files nor a gitlink; the trash keeps them).
std::vector<std::string> stageable_paths(const Workspace& workspace, const StatusSummary& summary);

/// A submodule commit that only the workspace's module repository has, to be fetched into the
/// project's (`module`) under `ref` once the accept is certain to land.
struct KeptGitlink {
  std::string module, from, oid, ref;
};
struct GitlinkCheck {
  std::vector<std::string> warnings;
  std::vector<KeptGitlink> keep;
};

/// Before an accept lands `now` (the workspace's captured state): every gitlink it changed must
/// lead somewhere the project can follow. A submodule's new commit that its remote does not have
/// is to be kept in the project's module repository (<common>/modules/<name>) under
/// refs/berth/landed/ (`keep`: nothing is fetched here, so a refused or failed accept changes
/// nothing); one that can be made reachable nowhere is `unreachable_gitlink`, a gitlink that is
/// no submodule (a repository the agent made) `nested_repository`, both unless `allow_gitlink`.
/// A nested repository without a commit cannot land at all: `nested_repository` too, unless
/// `allow_gitlink` (it then stays out). Warnings: work inside submodules that does not land
/// (uncommitted or untracked).
Result<GitlinkCheck> check_gitlinks(const Project& project, const Workspace& workspace,
                                    const Captured& now, bool allow_gitlink);

/// Fetch the commits `check_gitlinks` named into the project's module repositories: called by
/// accept right before it lands.
Result<void> keep_gitlink_commits(const std::vector<KeptGitlink>& keep);

/// The nested repositories a status names, as the public API shows them.
std::vector<NestedWork> nested_work(const std::vector<NestedChange>& seen);

/// Keep the repositories in `seen`, and those whose gitlink differs between the workspace's base
/// and `head`, with their history, staged state and files. The commit that holds them (in the
/// project's object database, reachable from nothing yet: the caller makes it a parent of the
/// snapshot), or "" when there is nothing to keep. What could not be kept is said in `warnings`.
/// `committed`, when given: the gitlinks base..head changed (path, commit), as
/// gitlinks_committed found them (no diff-tree then).
using Gitlinks = std::vector<std::pair<std::string, std::string>>;
Result<std::string> save_nested(const Project& project, const Workspace& workspace,
                                const std::vector<NestedChange>& seen, const std::string& head,
                                std::vector<std::string>& warnings,
                                const Gitlinks* committed = nullptr);

/// The gitlinks each pair's commits changed (base..head: path and new commit), for several
/// workspaces in one `diff-tree --stdin`. One list per pair (empty when base is head); nullopt
/// when git could not say, or two pairs share a HEAD but not a base (then ask save_nested).
std::optional<std::vector<Gitlinks>>
gitlinks_committed(const Project& project,
                   const std::vector<std::pair<std::string, std::string>>& base_head);

/// For a workspace whose directory is gone (a commits-only snapshot): the module repositories of
/// its submodules (in its admin dir, deleted with it) that hold commits their remotes do not
/// have, kept with their refs and HEAD, their files being HEAD's. Same result as save_nested;
/// fails when one cannot be kept (it may hold the only copy of a commit).
Result<std::string> save_module_commits(const Project& project, const Workspace& workspace,
                                        const std::string& head,
                                        std::vector<std::string>& warnings);
/// Whether save_module_commits would keep anything (`head`: the workspace's HEAD).
bool modules_hold_own_commits(const Project& project, const Workspace& workspace,
                              const std::string& head);

/// Put the repositories kept in `nested` (a commit from save_nested) back into a restored
/// workspace. Problems are warnings: the workspace itself is restored already.
std::vector<std::string> restore_nested(const Project& project, const Workspace& workspace,
                                        const std::string& nested);

/// `work_tree` with its untracked files (those not in `index_tree`) hashed as they are on disk:
/// no clean filter, no end-of-line conversion, so that the trash gives back the same bytes.
Result<std::string> untracked_as_is(const Project& project, const Workspace& workspace,
                                    const std::string& index_tree, const std::string& work_tree);

/// The git that untracked_as_is_many hashes files with, as they are (a conversation: a caller may
/// start it ahead, PrestartedGits).
GitCall untracked_hasher(const Project& project);

/// untracked_as_is of several work trees (a discard's siblings): one hash-object for all their
/// untracked files, one tree edit for all the trees that differ. `known`, when set, is a work
/// tree's untracked files as its capture found them (Captured::added): no diff-tree to find them.
struct UntrackedAsked {
  const Workspace* workspace;
  std::string index_tree, work_tree;
  std::optional<std::vector<TreeEntry>> known;
};
Result<std::vector<std::string>> untracked_as_is_many(const Project& project,
                                                      const std::vector<UntrackedAsked>& asked);

/// After a restore filled the work tree from `work_tree` (through the smudge filters): write
/// the untracked files back with their bytes as stored.
Result<void> write_untracked_as_is(const Project& project, const Workspace& workspace,
                                   const std::string& index_tree, const std::string& work_tree);

} // namespace berth

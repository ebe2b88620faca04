// Small shared pieces of the workspace modules: how berth calls git on the repository and inside
// one workspace.
#pragma once

#include "berth/berth.hpp"
#include "core/git.hpp"
#include "core/porcelain.hpp"
#include "core/registry.hpp"

#include <set>
#include <string>
#include <vector>

namespace berth {

/// A git call on the repository itself (refs, worktree admin), independent of any work tree.
GitCall repo_call(const Project& project, std::vector<std::string> args);
/// repo_call for a `diff-tree` that reads no content (`--raw`, `--name-only`, `--name-status`,
/// without rename or copy detection): git reads the repository's index first all the same (the
/// user's checkout's: ~5 ms per 50k files), which such a diff never uses (attributes and
/// work-tree files serve content only). Pointed at an index that does not exist, it skips that.
GitCall tree_diff_call(const Project& project, std::vector<std::string> args);
/// A git call inside a workspace, through the git dir and work tree berth's registry recorded.
GitCall workspace_call(const Workspace& workspace, std::vector<std::string> args);
/// Which of `paths` (relative to the workspace's top) git's ignore rules ignore, in one
/// `git check-ignore --no-index` for them all: the rules alone (.gitignore files, info/exclude,
/// core.excludesFile), not whether the index tracks a path. Nullopt when git could not tell.
std::optional<std::set<std::string>> ignored_by_rules(const Workspace& workspace,
                                                      const std::vector<std::string>& paths);
/// The git ignored_by_rules asks (it reads its paths from its input: a caller may start it
/// ahead, PrestartedGits).
GitCall ignore_checker(const Workspace& workspace);

int64_t unix_now();

/// The files of a workspace below `under` ("" or "." for all) as git sees them: tracked files
/// and untracked ones that are not ignored (what a person means by "the project's files";
/// node_modules and build output stay out), paths relative to the workspace's top, sorted.
/// Entries git lists but the disk no longer has (deleted, not yet committed) are included: the
/// caller looks at each.
Result<std::vector<std::string>> workspace_files(const Workspace& workspace,
                                                 const std::string& under);

/// The `git rev-list` arguments that count the agent's commits on `tip` (a commit or a ref): not
/// in its base and, once synced, not in what it was synced onto, nor sync's own merge commits.
std::vector<std::string> agent_commits_args(const Workspace& w, const std::string& tip);

/// Add `line` (a gitignore pattern, e.g. "/.worktrees/") to the repository's .git/info/exclude
/// under "# <comment>", unless it or `also` is there already: berth's own files inside a checkout
/// stay out of `git status` without touching the user's .gitignore.
Result<void> exclude_in_checkouts(const Project& project, const std::string& line,
                                  std::string_view comment, const std::string& also = {});

/// git's worktrees of the project, the main one first, at the place berth knows it to be (git
/// names a separate git dir's main work tree after the git dir: Project::main_worktree knows).
Result<std::vector<WorktreeEntry>> worktrees(const Project& project);
/// bare_repository: git sees no work tree at the project's checkout (its shared config says bare,
/// or names another work tree: config damage `berth doctor` names and repairs).
Error no_work_tree_error(const Project& project);

/// This very binary when it is berth (or git-berth), to start berth's background processes and to
/// name git's fsmonitor hook; nullopt in a program that only links the library (a test, say),
/// which would run itself with arguments it does not know.
std::optional<std::string> berth_executable();

/// Move a worktree as `git worktree move` does (a rename that never replaces anything, then the
/// admin dir's `gitdir` pointed at the new place), without git's check for submodules, which
/// reads the whole index (~20 ms per 100k files). For a tree on its way to deletion, or one with
/// no submodules (whose own git files would need fixing): the caller makes sure. False when it
/// could not (the caller then asks git). A departure from "every worktree write through git",
/// like the lock reason's: the file is git's documented admin file.
/// `kill_step`: with BERTH_TEST_FAIL_AT=<kill_step>:kill (berth's own tests only), berth dies by
/// SIGKILL between the rename and the `gitdir` rewrite, where no git call is to kill it at.
bool rename_worktree(const std::string& git_dir, const std::string& from, const std::string& to,
                     std::string_view kill_step = {});

/// BERTH_TEST_FAIL_AT=<step>:kill (berth's own tests only, docs/errors.md): die by SIGKILL at
/// `step`, as a kill -9 there would.
void test_kill_at(std::string_view step);

/// The `-c` options of every checkout berth makes (workspaces and pool slots): parallel workers
/// unless the user configured them, and LFS handling (setup.lfs = "skip"; git-lfs missing).
struct CheckoutTuning {
  std::vector<std::string> args;
  std::vector<std::string> warnings;
  std::string hooks_path; ///< core.hooksPath ("" when unset)
};
Result<CheckoutTuning> checkout_tuning(const Project& project);

/// The admin dir a worktree's `.git` file points to (resolved, real path), or "" when the file
/// is missing, a symlink, or not a gitfile. Read only of a tree berth just made or must verify.
std::string read_gitfile(const std::string& work_tree);

/// Wait until the clock has left the second the workspace's index was written in, then refresh
/// the index: no entry stays "racily clean", so the next `git status` hashes nothing.
void settle_index(const Workspace& workspace);
/// settle_index, but only for an index large enough for it to pay off.
void settle_large_index(const Workspace& workspace);
/// Whether the workspace's index is that large (~10k entries and more).
bool large_index(const Workspace& workspace);

/// Re-lock the workspace's worktree with a new reason, if berth holds its lock (never a lock the
/// user placed). The reason of an idle workspace is `idle_lock_reason`.
void set_lock_reason(const Project& project, const Workspace& workspace, const std::string& reason);
std::string idle_lock_reason(const Workspace& workspace);

/// The identity berth's own bookkeeping commits carry (snapshots), so they never depend on the
/// user having configured one.
std::map<std::string, std::optional<std::string>> berth_identity();

/// The reason every lock berth puts on a worktree starts with; a lock with another reason is the
/// user's.
inline constexpr const char* kLockReasonPrefix = "berth";

// ---- shared by the workspace modules (workspace*.cpp, discard.cpp, restore.cpp) ----

Registry registry_of(const Project& project);
/// Whether `ref` exists in the repository.
Result<bool> ref_exists(const Project& project, const std::string& ref);
/// Whether git lists a worktree at `path` (true when git cannot tell).
bool git_has_worktree(const Project& project, const std::string& path);
/// The worktree's lock reason; `*locked` says whether it is locked at all.
std::string read_lock_reason(const Workspace& w, bool* locked);
/// Point the workspace's .git file back at its admin dir, as berth's record has it.
void repoint_gitfile(const Workspace& w);

/// The record of `name`, as it is (an untrusted one with `invalid` set): for status.
Result<Workspace> load_record(const Project& project, std::string_view name);
/// The record of `name`, refused when untrusted; re-linked in memory after a move.
Result<Workspace> load_workspace(const Project& project, std::string_view name);
/// What `berth status` shows of a workspace.
WorkspaceStatus status_of(const Project& project, const Workspace& w);

} // namespace berth

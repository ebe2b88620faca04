// Things changed behind berth's back: a worktree removed or pruned with git, a workspace branch
// deleted, a trash ref whose objects are gone, shared config that breaks the checkout or berth.
// Each is found here for `status`, `list` and `doctor`, and repaired where the repair is
// unambiguous; doctor() calls these one by one.
#pragma once

#include "berth/berth.hpp"
#include "core/porcelain.hpp"

#include <optional>
#include <string>
#include <vector>

namespace berth {

/// The content of a small file of git's admin dir (at most 64 KiB: its tail), read without
/// blocking on a FIFO or following a symlink an agent may have planted; "" when it is not a
/// regular file.
std::string read_admin_file(const std::string& path);

/// doctor: the workspace's `.git` file must name its own admin dir. One replaced (a FIFO, or a
/// `gitdir:` pointing at the user's repository: a git run there, unsandboxed, would commit to the
/// user's branch) is `gitfile_mismatch`; --repair writes it back (a directory named `.git` is only
/// reported).
void check_gitfile(const Workspace& w, Repair repair, DoctorReport& report);

/// The problem of a workspace whose directory is gone (`directory_missing`: git still has its
/// worktree; `worktree_missing`: git has none any more), or nullopt. `listed` is git's
/// `worktree list`.
std::optional<Problem> gone_problem(const Project& project, const Workspace& w,
                                    const std::vector<WorktreeEntry>& listed);

/// doctor --repair, once the project lock is released: discard each named workspace whose
/// directory is gone (its branch's commits go to the trash as with `berth discard`), moving its
/// problems from `report.problems` to `report.repaired`.
void discard_gone(const Project& project, const std::vector<std::string>& names,
                  DoctorReport& report);

} // namespace berth

namespace berth {

/// A workspace whose branch was deleted behind berth's back while its admin dir is there.
struct LostBranch {
  /// HEAD still names the branch (git then calls HEAD unborn, and nothing that needs a commit
  /// works), rather than being detached or on another branch.
  bool head_on_it = false;
  /// Where the branch is made again: HEAD's commit, or for an unborn HEAD the commit HEAD last
  /// held (from its reflog); "" when unknown.
  std::string commit;
};
/// Whether `w`'s branch is gone (nullopt when it is there, or the admin dir is gone).
std::optional<LostBranch> lost_branch(const Project& project, const Workspace& w);
/// Error{branch_missing} when `w`'s HEAD names its deleted branch (else nothing).
Result<void> refuse_lost_branch(const Project& project, const Workspace& w);
/// Make `w`'s branch again at `commit` (create-only: never moves a branch that exists).
Result<void> make_branch_again(const Project& project, const Workspace& w,
                               const std::string& commit, const std::string& why);
/// doctor: report `w`'s branch deleted behind berth's back (`branch_missing`); with Repair::yes
/// make it again where HEAD is (or was, for a HEAD that names it). Call under the lock.
void check_branch(const Project& project, const Workspace& w, Repair repair, DoctorReport& report);

} // namespace berth

namespace berth {

/// doctor: trash refs that cannot be restored — `trash_damaged` (its commit or objects it needs
/// are missing, also deep in its trees) and `trash_invalid` (the ref holds no berth snapshot).
/// With Repair::yes each is moved aside, never deleted outright: a damaged one out of refs/
/// (where it breaks the user's `git gc` too), its name and id appended to
/// <berth>/trash-damaged; an invalid one to refs/berth/invalid/. Call under the lock.
void check_trash(const Project& project, Repair repair, DoctorReport& report);

} // namespace berth

namespace berth {

/// doctor: the repository's shared config (and config.worktree) damaged in ways that break the
/// user's checkout or berth: `config_core_bare` (core.bare = true on a checkout's `.git`),
/// `config_core_worktree`, `config_hooks_path`, `config_fsmonitor` (pointing into a workspace,
/// a discarded tree or a pool slot). With Repair::yes only the unambiguous ones are fixed:
/// core.bare set back to false and core.worktree unset for a checkout's `.git`, a core.fsmonitor
/// hook inside a workspace unset (git then looks at every file: slower, never wrong); a
/// core.hooksPath is the user's to set back. Call under the lock.
void check_config(const Project& project, Repair repair, DoctorReport& report);

} // namespace berth

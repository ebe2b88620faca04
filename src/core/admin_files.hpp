// The files git reads in a worktree's admin dir (<common>/worktrees/<id>/): HEAD, index,
// logs/HEAD, commondir, gitdir... A command working in a workspace can write there (git itself
// must), so any of them may be a FIFO, a socket, a device, a symlink to /dev/zero or a directory.
// git opens them with a blocking read: a FIFO makes every git call on that worktree, and the
// user's own `git gc` in the main checkout, wait forever. berth looks with lstat (never an open)
// before git reads them, refuses such a workspace, and moves the files aside when it repairs.
#pragma once

#include "berth/berth.hpp"

#include <optional>
#include <string>
#include <vector>

namespace berth {

/// One entry of an admin dir that is not what git expects there.
struct HostileFile {
  std::string path; ///< absolute path of the entry
  std::string kind; ///< what it is: "a FIFO", "a socket", "a device", "a symlink", "a directory"
  std::string module = {}; ///< the submodule git dir (under `<admin>/modules/`) it is in, or ""
};

/// The entries of the admin dir `git_dir` that git would read but that are not regular files
/// (or, for `logs` and `refs`, not directories), there and in each submodule git dir under its
/// `modules/` (nested ones too). readdir and fstatat calls, no open.
std::vector<HostileFile> hostile_admin_files(const std::string& git_dir);

/// Error{hostile_file} naming the first of them, when the workspace's admin dir has any.
Result<void> refuse_hostile_admin(const Workspace& workspace);

/// Error{hostile_file} when the git dirs of the main checkout's submodules (<common>/modules/,
/// nested ones too) hold such an entry: accept's look at the checkout would wait on it.
Result<void> refuse_hostile_checkout_modules(const std::string& common_dir);

/// One line for `list`, `status` and doctor: "<path> is a FIFO (...)".
std::string describe_hostile(const std::vector<HostileFile>& files);

/// Move each hostile entry of the admin dir aside (into `<admin>/berth-aside/`, where git never
/// looks; nothing is deleted) and put back what git needs: HEAD on the workspace's branch (or
/// `head` when given, a detached commit), `commondir` and `gitdir`, and an index rebuilt from
/// HEAD (the staged state the planted file replaced is gone; the work tree is untouched).
/// Returns one line per file moved aside; a failure is an Error{hostile_file}.
Result<std::vector<std::string>> repair_admin_files(const Workspace& workspace,
                                                    const std::string& head = {});

/// The same for an admin dir berth has no record for (a pool slot, a leftover): only moves the
/// hostile entries aside, so that nothing git reads can block.
Result<std::vector<std::string>> move_hostile_aside(const std::string& git_dir);

} // namespace berth

namespace berth {

/// The first admin dir under <common>/worktrees whose HEAD, gitdir, commondir or locked (what
/// `git worktree list`, and so the user's `git gc` and `git worktree` commands, read of every
/// worktree) is not a regular file; "" when none. A few lstat calls per worktree.
std::string admin_dir_blocking_list(const std::string& common_dir);

/// The branches the worktrees have checked out, told as `git worktree list` tells them (HEAD
/// naming the branch) from the HEAD files themselves, without a git process: the main checkout's
/// (its admin dir is the common dir) and each one's under <common>/worktrees/. nullopt when one of
/// them cannot be read so (a symlink, a FIFO, a missing HEAD, anything but a ref or an object
/// name): then ask git.
struct CheckedOut {
  std::string admin_dir;
  std::string ref; ///< "refs/heads/x"
};
std::optional<std::vector<CheckedOut>> checked_out_branches(const std::string& common_dir);
/// Whether one of `listed` other than the worktree whose admin dir is `own_git_dir` (the same
/// folder, however it is spelled) has `ref` checked out.
bool held_elsewhere(const std::vector<CheckedOut>& listed, const std::string& own_git_dir,
                    const std::string& ref);

/// Error{hostile_file} when admin_dir_blocking_list finds one: for the callers of `git worktree
/// list`, which would otherwise wait on it.
Result<void> refuse_blocking_admin(const std::string& common_dir);

/// doctor's look at every admin dir under <common>/worktrees (workspaces, pool slots, others):
/// each hostile entry is a problem; with Repair::yes it is moved aside (workspaces also get
/// HEAD, the index and the links back). Runs before anything that makes git read those dirs.
void doctor_admin_files(const Project& project, const std::vector<Workspace>& records,
                        Repair repair, DoctorReport& report);

/// doctor: the `berth-aside-*` folders earlier repairs left in admin dirs and in the common dir
/// (for the checkout's submodules), once a day old, are `aside_leftover` problems. With Repair::yes
/// what holds no data goes (FIFOs, sockets, devices, symlinks, folders left empty); regular files
/// are kept and named, with the folder, for the user to look at.
void doctor_aside_leftovers(const Project& project, const std::vector<Workspace>& records,
                            Repair repair, DoctorReport& report);

} // namespace berth

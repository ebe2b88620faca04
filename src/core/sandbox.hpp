// The sandbox of `berth run --sandbox`: confine a command's writes to its workspace and cut its
// network, enforced by the kernel (Landlock + seccomp) or by bubblewrap. Fail closed: a layer that
// was asked for and cannot be enforced is an error, never a silent downgrade.
//
// See docs/sandbox.md for the threat model.
#pragma once

#include "berth/berth.hpp"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace berth {
namespace sandbox {
class ConnectSupervisor;
}

enum class SandboxMode { off, landlock, bwrap, best_effort };
enum class Network { on, off };

/// What the confined command may write; everything else the user can read stays read-only.
struct SandboxRequest {
  SandboxMode mode = SandboxMode::landlock;
  Network network = Network::on;
  std::string workspace;         ///< the work tree (rw)
  std::string admin_dir;         ///< its worktree admin dir <common>/worktrees/<id> (rw)
  std::string object_quarantine; ///< where new git objects go (rw; GIT_OBJECT_DIRECTORY)
  std::string tmpdir;            ///< a private TMPDIR (rw)
  /// Further writable paths, directories or files, resolved: the per-project tool caches,
  /// --allow-write and sandbox.writable. Each must exist.
  std::vector<std::string> writable;
  /// Paths whose content the command must not read (credentials), resolved; they need not exist.
  /// None may overlap a writable path (sandbox_path_refused).
  std::vector<std::string> hidden;
  /// bwrap: a directory holding an empty directory `dir` and an empty file `file`, both mode 000,
  /// mounted over each hidden path (sandbox_policy.cpp makes them). Needed when `hidden` is not
  /// empty.
  std::string stub_dir;
  /// The standard streams (0, 1, 2) the command inherits from berth as they are: with --net=off
  /// a socket among them must not be one it could send outside through.
  std::vector<int> inherited_streams;
};

/// A sandbox ready to be applied to one child process.
struct PreparedSandbox {
  /// Landlock + seccomp: run in the child between fork and exec (async-signal-safe: only
  /// syscalls on objects prepared in the parent). Returns 0 or an errno value.
  std::function<int()> apply_in_child;
  /// bwrap: prepended to the command's argv.
  std::vector<std::string> argv_prefix;
  /// What is enforced ("landlock abi 6: filesystem", "landlock: tcp", "seccomp: udp, unix sockets",
  /// "bwrap", "new session", ...), and with best_effort what could not be.
  std::vector<std::string> layers;
  std::vector<std::string> missing;
  /// What the run should know although nothing asked for is missing (the host's /dev/shm kept,
  /// read-only, where no private one could be made).
  std::vector<std::string> warnings;
  /// Descriptors the parent must keep open until the child has started (closed afterwards).
  std::vector<int> keep_fds;
  /// Owns what apply_in_child uses (the Landlock ruleset, the compiled seccomp program); copies
  /// of apply_in_child share it, release_sandbox drops this reference.
  std::shared_ptr<const void> child_state;
  /// With --net=off: the thread that makes the run's connects (sandbox_notify.cpp). Keep this
  /// until the run has ended; release_sandbox does not drop it.
  std::shared_ptr<sandbox::ConnectSupervisor> supervisor;
};

/// Build the sandbox for `request`. Error{sandbox_unavailable} says what is missing.
Result<PreparedSandbox> prepare_sandbox(const SandboxRequest& request);

/// Release what prepare_sandbox opened (after the child started).
void release_sandbox(PreparedSandbox& sandbox);

/// A confined session in a workspace: during it, the workspace's HEAD is detached at its branch
/// tip (the per-worktree HEAD lives in the writable admin dir) and new objects go to a quarantine
/// directory with the shared object store as an alternate, so the common git dir stays read-only.
struct ConfinedSession {
  std::string quarantine; ///< object quarantine directory
  std::string tmpdir;     ///< private TMPDIR
  std::string branch_tip; ///< the branch's commit when the session began
  /// GIT_OBJECT_DIRECTORY, GIT_ALTERNATE_OBJECT_DIRECTORIES, TMPDIR, and GIT_CONFIG_* turning
  /// off automatic gc/maintenance (they would write into the read-only common dir).
  std::map<std::string, std::string> env;
  /// Files the sandboxed command can rewrite but berth's and the user's later git calls trust:
  /// the workspace's gitfile and the admin dir's commondir, gitdir and config.worktree. Their
  /// content when the session began (nullopt: absent); end_confined_session puts it back.
  std::vector<std::pair<std::string, std::optional<std::string>>> trusted_files;
  /// The sandboxed command (the leader of its own session), once started; 0 before.
  int command_pid = 0;
  int64_t command_start = 0;
};

/// Begin a session. What ending it needs is also written to <common>/berth/sessions/<slug>.json
/// (read-only to the sandbox), so that a berth killed mid-run can be finished by the next one.
Result<ConfinedSession> begin_confined_session(const Project& project, const Workspace& workspace);

/// Note the sandboxed command's process in the session record, so that recovery can stop a tree
/// its dead berth left running.
void record_session_command(const Project& project, const Workspace& workspace,
                            ConfinedSession& session, int pid);

/// After the command: migrate the quarantined objects into the shared store, verify that the new
/// HEAD is connected, fast-forward the workspace branch to it and re-attach HEAD; remove the
/// quarantine and tmpdir. Commits made inside end up on the branch.
struct SessionOutcome {
  std::string new_head;
  int commits = 0;
  std::vector<std::string> warnings;
};
Result<SessionOutcome> end_confined_session(const Project& project, const Workspace& workspace,
                                            const ConfinedSession& session);

/// Finish the session a dead berth left behind (kill -9 mid-run): stop the sandboxed command's
/// session if it still runs, then end the session as end_confined_session does (trusted files put
/// back, objects migrated, branch fast-forwarded, HEAD re-attached). nullopt when the workspace
/// has no unfinished session. Call only while no live process holds the workspace.
Result<std::optional<SessionOutcome>> recover_confined_session(const Project& project,
                                                               const Workspace& workspace);

} // namespace berth

// The pieces prepare_sandbox assembles: one function family per mechanism (sandbox_landlock.cpp,
// sandbox_seccomp.cpp, sandbox_bwrap.cpp). Everything here is built in the parent; what runs in
// the child between fork and exec is only a handful of syscalls on objects made here.
#pragma once

#include "berth/error.hpp"
#include "core/sandbox.hpp"
#include "util/fd.hpp"
#include "util/try.hpp"

#include <cstdint>
#include <linux/filter.h>
#include <memory>
#include <optional>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

namespace berth::sandbox {

/// An owned file descriptor (util::Fd; the name the sandbox files have always used).
using UniqueFd = util::Fd;

// ---- Landlock ----------------------------------------------------------------------------------

/// The kernel's Landlock ABI version; 0 when Landlock is absent or disabled at boot.
int landlock_abi();

/// What a Landlock ruleset built for a request enforces.
struct LandlockRuleset {
  UniqueFd fd;
  int abi = 0;
  bool truncate = false;      ///< truncate(2)/O_TRUNC of read-only files is refused (ABI >= 3)
  bool tcp = false;           ///< TCP bind and connect refused (ABI >= 4; only with net off)
  bool abstract_unix = false; ///< abstract unix sockets outside the sandbox scoped (ABI >= 6)
  bool signals = false;       ///< signals to processes outside the sandbox refused (ABI >= 6)
  uint64_t handled_fs = 0;    ///< every filesystem right the ruleset handles (all this ABI has)
};

/// Build (in the parent) the ruleset: read and execute everywhere but beneath `hidden`, write
/// only beneath `writable_dirs` and to the few device files a normal build writes. `restrict_tcp`:
/// refuse every TCP bind and connect (--net=off without a private network namespace);
/// `scope_abstract_unix`: abstract unix sockets outside the sandbox (--net=off).
Result<LandlockRuleset> build_landlock_ruleset(const std::vector<std::string>& writable_dirs,
                                               const std::vector<std::string>& hidden,
                                               bool restrict_tcp, bool scope_abstract_unix);

/// In the child: enforce `ruleset_fd` on the calling thread. Needs no_new_privs set first.
/// Async-signal-safe; returns 0 or an errno value.
int landlock_restrict_self(int ruleset_fd);

/// In the child, before landlock_restrict_self: grant `access` beneath the directory `path` as
/// the child sees it (a mount made in its own mount namespace, which the parent cannot name: a
/// rule names an inode, and before the mount `path` was the host's directory). Async-signal-safe;
/// 0 or an errno value.
int landlock_allow_beneath_in_child(int ruleset_fd, const char* path, uint64_t access);

// ---- seccomp -----------------------------------------------------------------------------------

/// Which sockets the filter refuses (always also: the TIOCSTI and TIOCLINUX ioctls).
struct SeccompPolicy {
  /// connect(2) goes to berth's supervisor (a user notification: ConnectSupervisor), and datagram
  /// unix sockets, whose every send names its destination, are refused.
  bool supervise_connect = false;
  bool deny_unix = false;           ///< socket(AF_UNIX): no connection to host sockets by path
  bool deny_inet_non_tcp = false;   ///< AF_INET/AF_INET6 other than plain TCP: UDP, raw, SCTP...
  bool deny_tcp = false;            ///< AF_INET/AF_INET6 entirely (when Landlock cannot do TCP)
  bool deny_other_families = false; ///< netlink, packet, vsock, bluetooth, ... every other family
  bool allow_netlink = false; ///< with deny_other_families: netlink stays (a private namespace's)
  bool deny_setns = false;    ///< setns(2): no way back into the host's namespaces
};

/// A compiled classic-BPF program for PR_SET_SECCOMP.
struct SeccompProgram {
  std::vector<sock_filter> instructions;
};

/// Compile (in the parent) the filter for `policy`, native architecture only: a syscall of another
/// ABI (32-bit x86 on x86-64) kills the process, since its socketcall(2) hides the arguments.
Result<SeccompProgram> build_seccomp_filter(const SeccompPolicy& policy);

/// In the child: load `program` (no_new_privs must be set). Async-signal-safe; 0 or an errno.
int seccomp_load_program(const SeccompProgram& program);

// ---- the run's connects, made by berth (seccomp user notification)
// -------------------------------

/// What this kernel lacks for the supervisor (seccomp user notification, pidfd_getfd, openat2,
/// the unix sock_diag table, SO_NETNS_COOKIE: Linux 5.14); "" when nothing.
std::string connect_supervisor_missing();

struct SupervisorLoop;

/// Makes each connect(2) of one sandboxed run on its behalf, allowing a unix socket by path only
/// when the run's own network namespace bound it (sandbox_notify.cpp). A thread of the calling
/// berth, from start() until the object dies, which must outlive the run (its connects fail with
/// ENOSYS after).
class ConnectSupervisor {
public:
  static Result<std::shared_ptr<ConnectSupervisor>> start();
  ~ConnectSupervisor();
  ConnectSupervisor(const ConnectSupervisor&) = delete;
  ConnectSupervisor& operator=(const ConnectSupervisor&) = delete;
  /// The child's end of the hand-over channel (hand_over_to_supervisor).
  int child_end() const { return child_end_.get(); }
  /// Close the parent's copy of the child's end once the child started.
  void close_child_end();

private:
  ConnectSupervisor() = default;
  util::Fd child_end_;
  std::shared_ptr<SupervisorLoop> loop_; // shared with the loop's thread
};

/// In the child: load `program` with a user-notification listener; the listener or -errno.
int seccomp_load_with_listener(const SeccompProgram& program);

/// In the child, inside the run's network namespace: the netlink socket through which the
/// supervisor reads that namespace's unix sockets; the descriptor or -errno.
int open_unix_diag_in_child();

/// In the child, after the filter: give `listener` and `diag` to the supervisor over `channel`
/// and wait until it has them. Async-signal-safe; 0 or an errno value.
int hand_over_to_supervisor(int channel, int listener, int diag);

// ---- the run's own namespaces (Landlock mode: --net=off, a private /dev/shm) ------------------

/// The namespaces the child enters before Landlock: a network namespace (--net=off), a mount
/// namespace (a private /dev/shm; with --net=off the covers of the host's unix sockets), an IPC
/// namespace (SysV IPC), and, where the caller is not root or lacks CAP_SYS_ADMIN, a user
/// namespace of its own to make them in. Built and tried in the parent; the child only makes the
/// syscalls.
struct PrivateNamespaces {
  bool network = false;         ///< its own network namespace, loopback up
  bool user_namespace = false;  ///< inside a user namespace of its own (not root)
  std::string uid_map, gid_map; ///< with user_namespace: the caller's own ids, mapped to themselves
  /// A mount namespace of its own (mounts made private first, so nothing propagates back).
  bool mount_namespace = false;
  /// An IPC namespace of its own: SysV shared memory, semaphores and message queues and POSIX
  /// message queues are the run's, not the host's (bwrap: --unshare-ipc).
  bool ipc_namespace = false;
  /// With mount_namespace: each of `covers` (the host's unix sockets by path) is covered by
  /// `cover_with`, so the run may use unix sockets of its own. Empty: none covered (--net=on, or
  /// the table could not be read: then unix sockets stay refused by seccomp).
  std::vector<std::string> covers;
  std::string cover_with;
  /// With mount_namespace: a fresh tmpfs mounted on this directory (the resolved /dev/shm) with
  /// the options `shm_options`; "" when the run keeps the host's.
  std::string shm;
  std::string shm_options;
  /// Why no private network namespace, or no private /dev/shm, could be had when one was asked
  /// for: the failed step and its error ("" otherwise).
  std::string network_missing;
  std::string shm_missing;
};

/// The paths of the unix sockets bound in this network namespace now (/proc/net/unix: every
/// listening or bound path socket of the host's processes), absolute and still sockets; none
/// beneath `except` (paths already covered whole). Read in the parent; nullopt when the table
/// cannot be read (then nothing may be allowed on the strength of it).
std::optional<std::vector<std::string>> host_unix_sockets(const std::vector<std::string>& except);

/// The directory a private /dev/shm is mounted on: /dev/shm resolved, "" where there is none
/// or where the user made (part of) the host's writable on purpose (a writable path at, beneath
/// or above it: --allow-write /dev/shm).
std::string private_shm_target(const std::vector<std::string>& writable_dirs);

/// In the parent: find out (in throw-away children) which namespaces can be had here, the best
/// plan first. `network`: a network namespace is wanted (--net=off); `shm`: a private tmpfs on
/// that directory (private_shm_target; "" none). What cannot be had is left out of the plan and
/// `network_missing` or `shm_missing` says why; the caller decides what that means (--net=off
/// fails closed, the host's /dev/shm stays read-only).
PrivateNamespaces prepare_namespaces(bool network, const std::string& shm);

/// Whether `plan` enters any namespace at all.
bool enters_namespaces(const PrivateNamespaces& plan);

/// In the child: enter the namespaces of `plan`: unshare, the id maps, mounts made private, the
/// covers, the private /dev/shm, the loopback up. Async-signal-safe; 0 or an errno value, and the
/// failed step in `failed_step` (1 unshare, 2 setgroups, 3 uid_map, 4 gid_map, 5 loopback,
/// 6 private mounts, 7 covering a socket, 8 mounting /dev/shm).
int enter_namespaces(const PrivateNamespaces& plan, int* failed_step = nullptr);

// ---- bubblewrap --------------------------------------------------------------------------------

/// The bwrap executable found on PATH ("" when none).
std::string find_bwrap();

/// The argv prefix that runs a command under bwrap with the sandbox policy.
/// `hidden` paths and `unix_covers` are covered by `stub_dir`'s empty, mode-000 directory `dir`
/// or file `file`; `unshare_net`: bwrap makes the network namespace (else berth's child has).
std::vector<std::string> bwrap_argv(const std::string& bwrap,
                                    const std::vector<std::string>& writable_dirs,
                                    const std::vector<std::string>& hidden,
                                    const std::string& stub_dir, bool unshare_net,
                                    const std::vector<std::string>& unix_covers);

} // namespace berth::sandbox

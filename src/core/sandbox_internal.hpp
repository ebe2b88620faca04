// The pieces prepare_sandbox assembles: one function family per mechanism (sandbox_landlock.cpp,
// sandbox_seccomp.cpp, sandbox_bwrap.cpp). Everything here is built in the parent; what runs in
// the child between fork and exec is only a handful of syscalls on objects made here.
#pragma once

#include "berth/error.hpp"
#include "core/sandbox.hpp"
#include "util/fd.hpp"
#include "util/try.hpp"

#include <linux/filter.h>
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
};

/// Build (in the parent) the ruleset: read and execute everywhere, write only beneath
/// `writable_dirs` and to the few device files a normal build writes.
Result<LandlockRuleset> build_landlock_ruleset(const std::vector<std::string>& writable_dirs,
                                               Network network);

/// In the child: enforce `ruleset_fd` on the calling thread. Needs no_new_privs set first.
/// Async-signal-safe; returns 0 or an errno value.
int landlock_restrict_self(int ruleset_fd);

// ---- seccomp -----------------------------------------------------------------------------------

/// Which sockets the filter refuses (always also: the TIOCSTI and TIOCLINUX ioctls).
struct SeccompPolicy {
  bool deny_unix = false;           ///< socket(AF_UNIX): no connection to host sockets by path
  bool deny_inet_non_tcp = false;   ///< AF_INET/AF_INET6 other than plain TCP: UDP, raw, SCTP...
  bool deny_tcp = false;            ///< AF_INET/AF_INET6 entirely (when Landlock cannot do TCP)
  bool deny_other_families = false; ///< netlink, packet, vsock, bluetooth, ... every other family
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

// ---- bubblewrap --------------------------------------------------------------------------------

/// The bwrap executable found on PATH ("" when none).
std::string find_bwrap();

/// The argv prefix that runs a command under bwrap with the sandbox policy.
std::vector<std::string> bwrap_argv(const std::string& bwrap,
                                    const std::vector<std::string>& writable_dirs, Network network);

} // namespace berth::sandbox

// seccomp: what Landlock cannot express. With --net=off: families no namespace confines (vsock
// reaches the hypervisor, bluetooth, ...), without a private network namespace also UDP (DNS
// exfiltration), raw and netlink sockets; and unix sockets (a connect(2) to /run/docker.sock or
// $SSH_AUTH_SOCK is a path, which no filter can inspect, so socket(AF_UNIX) itself is refused;
// socketpair(2) stays allowed, it reaches nothing outside) — or, where berth supervises the
// run's connects (sandbox_notify.cpp), connect(2) becomes a user notification and only datagram
// unix sockets are refused; and io_uring, whose socket and connect operations no filter sees.
// Always: TIOCSTI and TIOCLINUX, which push keystrokes into a terminal.
//
// The filter is compiled by libseccomp in the parent and exported as classic BPF; the child only
// calls prctl(PR_SET_SECCOMP), which is async-signal-safe.
#include "core/sandbox_internal.hpp"

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <linux/seccomp.h>
#include <memory>
#include <netinet/in.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

namespace berth::sandbox {
namespace {

struct CtxDeleter {
  void operator()(void* ctx) const { seccomp_release(ctx); }
};
using Ctx = std::unique_ptr<void, CtxDeleter>;

// The kernel compares only the low 32 bits of an int argument; a filter comparing all 64 would
// let `AF_UNIX | 1ULL << 32` through (flatpak's CVE-2019-10063 for TIOCSTI).
constexpr scmp_datum_t kLow32 = 0xffffffffu;

Result<void> deny(scmp_filter_ctx ctx, int syscall, std::vector<scmp_arg_cmp> args,
                  const char* what) {
  int rc = seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EACCES), syscall,
                                  static_cast<unsigned>(args.size()), args.data());
  if (rc != 0)
    return fail(ErrorCode::sandbox_unavailable,
                fmt::format("seccomp: cannot add the rule for {}: {}", what, std::strerror(-rc)));
  return {};
}

} // namespace

Result<SeccompProgram> build_seccomp_filter(const SeccompPolicy& policy) {
  Ctx ctx(seccomp_init(SCMP_ACT_ALLOW));
  if (!ctx) return fail(ErrorCode::sandbox_unavailable, "seccomp: cannot initialise libseccomp");
  // A syscall of a foreign ABI (int 0x80 on x86-64) kills: its socketcall(2) would hide the
  // socket family from the filter.
  seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
  // The child sets no_new_privs itself, before Landlock; the exported program does not need it.
  seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_NNP, 0);

  for (unsigned long request : {static_cast<unsigned long>(TIOCSTI), 0x541CUL /* TIOCLINUX */})
    BERTH_TRY(deny(ctx.get(), SCMP_SYS(ioctl), {SCMP_A1(SCMP_CMP_MASKED_EQ, kLow32, request)},
                   "terminal ioctls"));

  // Families other than inet and unix: netlink, packet, vsock, bluetooth, can, alg, ... (the
  // kernel refuses families >= AF_MAX itself).
  if (policy.deny_other_families)
    for (int family = 0; family < 64; ++family) {
      if (family == AF_UNIX || family == AF_INET || family == AF_INET6) continue;
      // A private network namespace's netlink reaches only that namespace (getaddrinfo and
      // getifaddrs use it to see which addresses exist).
      if (family == AF_NETLINK && policy.allow_netlink) continue;
      BERTH_TRY(deny(ctx.get(), SCMP_SYS(socket),
                     {SCMP_A0(SCMP_CMP_MASKED_EQ, kLow32, static_cast<scmp_datum_t>(family))},
                     "socket families"));
    }
  if (policy.deny_setns) BERTH_TRY(deny(ctx.get(), SCMP_SYS(setns), {}, "setns"));
  // io_uring makes sockets (IORING_OP_SOCKET) and connects them without a syscall this filter
  // sees: with any socket rule it is refused whole (as Docker's default profile does; libuv,
  // liburing users and the rest fall back to plain syscalls).
  if (policy.deny_other_families || policy.deny_unix || policy.deny_tcp ||
      policy.deny_inet_non_tcp || policy.supervise_connect)
    for (int call :
         {SCMP_SYS(io_uring_setup), SCMP_SYS(io_uring_enter), SCMP_SYS(io_uring_register)})
      BERTH_TRY(deny(ctx.get(), call, {}, "io_uring"));
  if (policy.deny_unix)
    BERTH_TRY(deny(ctx.get(), SCMP_SYS(socket), {SCMP_A0(SCMP_CMP_MASKED_EQ, kLow32, AF_UNIX)},
                   "unix sockets"));
  if (policy.supervise_connect) {
    if (int rc = seccomp_rule_add(ctx.get(), SCMP_ACT_NOTIFY, SCMP_SYS(connect), 0); rc != 0)
      return fail(ErrorCode::sandbox_unavailable,
                  fmt::format("seccomp: cannot add the rule for connect: {}", std::strerror(-rc)));
    // A datagram unix socket (SOCK_RAW is one too) names its destination in each sendto(2) and
    // sendmsg(2), behind a pointer no filter reads: only stream and seqpacket sockets, whose
    // peer is fixed at connect, which berth makes.
    for (int call : {SCMP_SYS(socket), SCMP_SYS(socketpair)})
      for (scmp_datum_t type = 0; type < 16; ++type) {
        if (type == SOCK_STREAM || type == SOCK_SEQPACKET) continue;
        BERTH_TRY(deny(
            ctx.get(), call,
            {SCMP_A0(SCMP_CMP_MASKED_EQ, kLow32, AF_UNIX), SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, type)},
            "datagram unix sockets"));
      }
  }
  for (int family : {AF_INET, AF_INET6}) {
    scmp_arg_cmp fam = SCMP_A0(SCMP_CMP_MASKED_EQ, kLow32, static_cast<scmp_datum_t>(family));
    if (policy.deny_tcp) {
      BERTH_TRY(deny(ctx.get(), SCMP_SYS(socket), {fam}, "inet sockets"));
      continue;
    }
    if (!policy.deny_inet_non_tcp) continue;
    // Every socket type but SOCK_STREAM (the low 4 bits; the rest are SOCK_NONBLOCK/CLOEXEC).
    for (scmp_datum_t type = 0; type < 16; ++type) {
      if (type == SOCK_STREAM) continue;
      BERTH_TRY(deny(ctx.get(), SCMP_SYS(socket), {fam, SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, type)},
                     "datagram and raw sockets"));
    }
    // A stream socket whose protocol is not TCP (SCTP 132, MPTCP 262) is not covered by
    // Landlock's TCP rights: only protocol 0 and IPPROTO_TCP (6) pass.
    BERTH_TRY(deny(ctx.get(), SCMP_SYS(socket), {fam, SCMP_A2(SCMP_CMP_GT, IPPROTO_TCP, 0)},
                   "non-TCP stream sockets"));
    for (scmp_datum_t protocol = 1; protocol < IPPROTO_TCP; ++protocol)
      BERTH_TRY(deny(ctx.get(), SCMP_SYS(socket), {fam, SCMP_A2(SCMP_CMP_EQ, protocol, 0)},
                     "non-TCP stream sockets"));
  }

  // Export through a memfd: libseccomp writes the program to a descriptor, not to memory.
  UniqueFd mem(static_cast<int>(::memfd_create("berth-seccomp", MFD_CLOEXEC)));
  if (!mem)
    return fail(ErrorCode::sandbox_unavailable,
                fmt::format("seccomp: memfd_create: {}", std::strerror(errno)));
  if (int rc = seccomp_export_bpf(ctx.get(), mem.get()); rc != 0)
    return fail(ErrorCode::sandbox_unavailable,
                fmt::format("seccomp: cannot export the filter: {}", std::strerror(-rc)));
  struct stat st {};
  if (::fstat(mem.get(), &st) != 0 || st.st_size <= 0 ||
      st.st_size % static_cast<off_t>(sizeof(sock_filter)) != 0)
    return fail(ErrorCode::sandbox_unavailable, "seccomp: the exported filter is malformed");
  SeccompProgram program;
  program.instructions.resize(static_cast<size_t>(st.st_size) / sizeof(sock_filter));
  if (::pread(mem.get(), program.instructions.data(), static_cast<size_t>(st.st_size), 0) !=
      st.st_size)
    return fail(ErrorCode::sandbox_unavailable,
                fmt::format("seccomp: cannot read the exported filter: {}", std::strerror(errno)));
  return program;
}

int seccomp_load_program(const SeccompProgram& program) {
  sock_fprog prog{static_cast<unsigned short>(program.instructions.size()),
                  const_cast<sock_filter*>(program.instructions.data())};
  if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) return errno;
  return 0;
}

} // namespace berth::sandbox

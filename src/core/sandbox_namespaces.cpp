// The run's own namespaces in the Landlock mode (bwrap makes its own).
//
// --net=off: a network namespace, so the command gets a loopback of its own (a test server and
// its client talk over 127.0.0.1) and nothing else — no route out, not the host's loopback
// services, not the host's abstract unix sockets (their namespace is the network namespace's).
// bwrap does the same with --unshare-net.
//
// A private /dev/shm, with or without the network: POSIX shared memory and named semaphores
// (shm_open, sem_open: Python's multiprocessing.Lock and Pool, many test runners) live in
// /dev/shm, which is shared with every process of the host, so Landlock keeps the host's
// read-only. In a mount namespace of its own the run gets a fresh tmpfs there instead: writable,
// empty, the host's segments invisible, and gone with the run's last process. Its Landlock rule
// must name the new tmpfs, which only the child can see: the child adds it to the ruleset after
// the mount (sandbox.cpp). SysV shared memory and semaphores, and POSIX message queues, belong to
// the IPC namespace: the run gets one of its own too, as bwrap's --unshare-ipc gives.
//
// A user who is not root may create these namespaces only inside a user namespace of its own
// (CLONE_NEWUSER), which maps its own uid and gid and nothing else (files the run creates stay
// the user's, `id -u` is unchanged; files of other owners show as the overflow id, nobody); after
// exec a non-zero uid keeps no capability in it. Root creates them directly, and falls back to a
// user namespace where it lacks CAP_SYS_ADMIN (a container).
//
// Unix sockets by path are not scoped by the network namespace: a connect(2) to /run/docker.sock
// or $SSH_AUTH_SOCK reaches the host from any namespace, and Landlock cannot refuse it before ABI
// 9 (LANDLOCK_ACCESS_FS_RESOLVE_UNIX). So with --net=off every unix socket the host has bound
// (/proc/net/unix, read just before) is covered by an empty file in the mount namespace: a
// connect there finds no socket. The run's own sockets (bound in its writable directories, after
// it started) work. Without a mount namespace, socket(AF_UNIX) stays refused.
#include "core/git.hpp"
#include "core/sandbox_internal.hpp"
#include "util/atomic_file.hpp"
#include "util/paths.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

namespace berth::sandbox {
namespace {

// Async-signal-safe: open, write, close.
int write_proc_file(const char* path, const std::string& text) {
  int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  ssize_t n = ::write(fd, text.data(), text.size());
  int error = n == static_cast<ssize_t>(text.size()) ? 0 : (n < 0 ? errno : EIO);
  ::close(fd);
  return error;
}

const char* step_name(int step) {
  switch (step) {
  case 1:
    return "unshare";
  case 2:
    return "/proc/self/setgroups";
  case 3:
    return "/proc/self/uid_map";
  case 4:
    return "/proc/self/gid_map";
  case 6:
    return "making the mount namespace private";
  case 7:
    return "covering a host unix socket";
  case 8:
    return "mounting a private /dev/shm";
  default:
    return "bringing up the loopback interface";
  }
}

// Try `plan` in a throw-away child (the steps would change berth itself): "" when it worked,
// else the step that failed and why, reported through a pipe.
std::string try_in_child(const PrivateNamespaces& plan) {
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) return std::strerror(errno);
  pid_t pid = ::fork();
  if (pid < 0) {
    int error = errno;
    ::close(report[0]);
    ::close(report[1]);
    return std::strerror(error);
  }
  if (pid == 0) {
    int out[2] = {0, 0};
    out[1] = enter_namespaces(plan, &out[0]);
    (void)!::write(report[1], out, sizeof out);
    ::_exit(0);
  }
  ::close(report[1]);
  int in[2] = {0, 0};
  ssize_t n;
  while ((n = ::read(report[0], in, sizeof in)) < 0 && errno == EINTR) {
  }
  ::close(report[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (n != sizeof in) return "the probe died";
  if (in[1] == 0) return "";
  return fmt::format("{}: {}", step_name(in[0]), std::strerror(in[1]));
}

} // namespace

bool enters_namespaces(const PrivateNamespaces& plan) {
  return plan.network || plan.user_namespace || plan.mount_namespace || plan.ipc_namespace;
}

int enter_namespaces(const PrivateNamespaces& plan, int* failed_step) {
  int step = 1;
  auto failed = [&](int error) {
    if (failed_step) *failed_step = step;
    return error;
  };
  if (::unshare((plan.network ? CLONE_NEWNET : 0) | (plan.user_namespace ? CLONE_NEWUSER : 0) |
                (plan.mount_namespace ? CLONE_NEWNS : 0) |
                (plan.ipc_namespace ? CLONE_NEWIPC : 0)) != 0)
    return failed(errno);
  if (plan.user_namespace) {
    // Writing gid_map unprivileged needs setgroups(2) denied first (absent before Linux 3.19).
    step = 2;
    if (int error = write_proc_file("/proc/self/setgroups", "deny"); error != 0 && error != ENOENT)
      return failed(error);
    step = 3;
    if (int error = write_proc_file("/proc/self/uid_map", plan.uid_map); error != 0)
      return failed(error);
    step = 4;
    if (int error = write_proc_file("/proc/self/gid_map", plan.gid_map); error != 0)
      return failed(error);
  }
  if (plan.mount_namespace) {
    // Private first: a cover or the tmpfs must never propagate back to the host's namespace.
    step = 6;
    if (::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return failed(errno);
    // Not remounted read-only: a user namespace may not drop the locked nosuid/nodev of the
    // stub's filesystem; the stub is mode 000 and Landlock keeps it unwritable anyway (its rights
    // are those of the covered path), and a sandboxed process may not unmount (Landlock).
    step = 7;
    for (const auto& target : plan.covers)
      // Gone since the listing (its server stopped): nothing to cover.
      if (::mount(plan.cover_with.c_str(), target.c_str(), nullptr, MS_BIND, nullptr) != 0 &&
          errno != ENOENT)
        return failed(errno);
    // Over the host's /dev/shm, which the run then cannot reach by that path (nor by
    // /proc/PID/root: Landlock refuses ptrace-class access to processes outside the sandbox).
    step = 8;
    if (!plan.shm.empty() && ::mount("tmpfs", plan.shm.c_str(), "tmpfs", MS_NOSUID | MS_NODEV,
                                     plan.shm_options.c_str()) != 0)
      return failed(errno);
  }
  if (!plan.network) return 0;
  // A new namespace's loopback is down; up, the kernel gives it 127.0.0.1 and ::1. An ioctl, not
  // `ip link set lo up`: no program is needed and nothing is exec'd before the sandbox is whole.
  step = 5;
  int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return failed(errno);
  ifreq request{};
  std::memcpy(request.ifr_name, "lo", 3);
  int error = 0;
  if (::ioctl(fd, SIOCGIFFLAGS, &request) != 0) {
    error = errno;
  } else {
    request.ifr_flags = static_cast<short>(request.ifr_flags | IFF_UP | IFF_RUNNING);
    if (::ioctl(fd, SIOCSIFFLAGS, &request) != 0) error = errno;
  }
  ::close(fd);
  return error == 0 ? 0 : failed(error);
}

std::optional<std::vector<std::string>> host_unix_sockets(const std::vector<std::string>& except) {
  std::vector<std::string> paths;
  auto table = util::read_file("/proc/net/unix");
  if (!table) return std::nullopt;
  // "Num RefCount Protocol Flags Type St Inode Path": the path is the rest of the line after
  // seven fields (it may hold spaces); "@..." is abstract, a relative path cannot be placed.
  for (const auto& line : split_lines(*table)) {
    size_t at = 0;
    for (int field = 0; field < 7 && at != std::string::npos; ++field) {
      at = line.find_first_not_of(' ', at);
      if (at != std::string::npos) at = line.find(' ', at);
    }
    if (at == std::string::npos) continue;
    std::string path = line.substr(at + 1);
    if (path.empty() || path.front() != '/') continue;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
    bool skip = std::find(paths.begin(), paths.end(), path) != paths.end();
    for (const auto& covered : except)
      skip = skip || util::is_within(path, covered);
    if (!skip) paths.push_back(path);
  }
  return paths;
}

std::string private_shm_target(const std::vector<std::string>& writable_dirs) {
  auto shm = util::real_path("/dev/shm");
  if (!shm || !util::is_directory(*shm)) return "";
  for (const auto& dir : writable_dirs)
    if (util::is_within(dir, *shm) || util::is_within(*shm, dir)) return "";
  return *shm;
}

PrivateNamespaces prepare_namespaces(bool network, const std::string& shm) {
  // As large as the host's: what the command could have used there (a test suite's workers pass
  // big arrays through it; Docker's 64 MiB default is a known cause of failures). Memory is
  // taken only as files are written; tmpfs's own default (half the RAM) where it cannot be read.
  std::string shm_options = "mode=1777";
  struct statvfs host {};
  if (!shm.empty() && ::statvfs(shm.c_str(), &host) == 0 && host.f_blocks > 0)
    shm_options +=
        fmt::format(",size={}k", static_cast<uint64_t>(host.f_blocks) * host.f_frsize / 1024);

  // The candidates, best first. Root: no user namespace (and none is wanted: files would show as
  // owned by nobody). Otherwise, or where root lacks CAP_SYS_ADMIN, one of its own. With a mount
  // namespace (the private /dev/shm; with --net=off, the run's own unix sockets) where the kernel
  // gives one; --net=off then goes on without it (unix sockets stay refused), --net=on needs
  // nothing at all.
  std::vector<PrivateNamespaces> candidates;
  auto add = [&](bool mounts, bool private_shm) {
    for (bool nested : {false, true}) {
      if (!nested && ::geteuid() != 0) continue;
      PrivateNamespaces plan;
      plan.network = network;
      plan.mount_namespace = mounts;
      // Wherever a network or mount namespace can be had an IPC namespace can (the same
      // privilege): SysV shared memory is shared memory too.
      plan.ipc_namespace = true;
      if (private_shm) {
        plan.shm = shm;
        plan.shm_options = shm_options;
      }
      if (nested) {
        plan.user_namespace = true;
        plan.uid_map = fmt::format("{0} {0} 1\n", ::geteuid());
        plan.gid_map = fmt::format("{0} {0} 1\n", ::getegid());
      }
      candidates.push_back(std::move(plan));
    }
  };
  if (!shm.empty()) add(true, true);
  if (network) {
    add(true, false);
    add(false, false);
  } else if (shm.empty()) {
    add(false, false); // the IPC namespace alone (the host's /dev/shm was allowed)
  }
  std::string shm_why;
  std::string why;
  for (auto& plan : candidates) {
    why = try_in_child(plan);
    if (why.empty()) {
      if (!shm.empty() && plan.shm.empty()) plan.shm_missing = shm_why;
      return std::move(plan);
    }
    if (!plan.shm.empty()) shm_why = why;
  }
  PrivateNamespaces none;
  if (network) none.network_missing = why;
  if (!shm.empty()) none.shm_missing = why;
  return none;
}

} // namespace berth::sandbox

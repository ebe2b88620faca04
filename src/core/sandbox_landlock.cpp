// Landlock: the kernel confines the child's filesystem writes (and, with --net=off, TCP and
// abstract unix sockets) without any privilege. The ruleset is built here in the parent: opening
// the paths and adding rules allocate and may fail with a useful message; the child only calls
// landlock_restrict_self on the finished ruleset.
#include "core/sandbox_internal.hpp"

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <linux/landlock.h>
#include <set>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

// Debian's linux/landlock.h stops at ABI 2: the later constants, from the kernel's UAPI.
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14) // ABI 3
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15) // ABI 5
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0) // ABI 4
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) // ABI 6
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

namespace berth::sandbox {
namespace {

// The ruleset attribute as of ABI 6. The kernel accepts a larger struct than it knows as long as
// the fields it does not know are zero, so one layout serves every ABI: fields the running kernel
// lacks are simply left at zero.
struct RulesetAttr {
  __u64 handled_access_fs;
  __u64 handled_access_net; // ABI 4
  __u64 scoped;             // ABI 6
};

constexpr __u64 kFsAbi1 = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1; // EXECUTE .. MAKE_SYM

// Every filesystem right this ABI knows: all of them are handled, so anything not granted by a
// rule is refused.
__u64 handled_fs(int abi) {
  __u64 fs = kFsAbi1;
  if (abi >= 2) fs |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
  if (abi >= 5) fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
  return fs;
}

constexpr __u64 kReadExecute =
    LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
// Rights that make sense on a single (non-directory) file.
constexpr __u64 kFileRights = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                              LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |
                              LANDLOCK_ACCESS_FS_IOCTL_DEV;
// What a terminal or a sink device needs: `> /dev/null` opens with O_TRUNC, isatty() and stty
// are ioctls.
constexpr __u64 kDeviceRights = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                                LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV;

// The devices a normal build or an interactive tool writes. Nothing else under /dev: not disks,
// not the host's /dev/shm (shared with the user's other processes; the run's private one is
// granted by the child, once mounted: landlock_allow_beneath_in_child).
constexpr const char* kWritableDevices[] = {"/dev/null", "/dev/zero",   "/dev/full",    "/dev/tty",
                                            "/dev/ptmx", "/dev/random", "/dev/urandom", "/dev/pts"};

// `follow`: a symlink names its target (a writable dir the user gave); not following, a symlink
// gets no rule at all (an entry listed beside a hidden path: its target is granted, or not, by
// the rules of where it lies).
Result<void> add_path_rule(int ruleset, const std::string& path, __u64 access, __u64 handled,
                           bool required, bool follow = true) {
  int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
  if (fd < 0) {
    if (!required && errno == ENOENT) return {};
    return fail(ErrorCode::sandbox_unavailable,
                fmt::format("landlock: cannot open {}: {}", path, std::strerror(errno)));
  }
  UniqueFd owned(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    return fail(ErrorCode::sandbox_unavailable,
                fmt::format("landlock: cannot stat {}: {}", path, std::strerror(errno)));
  if (S_ISLNK(st.st_mode)) return {};
  access &= handled;
  if (!S_ISDIR(st.st_mode)) access &= kFileRights;
  landlock_path_beneath_attr rule{};
  rule.allowed_access = access;
  rule.parent_fd = fd;
  if (::syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0)
    return fail(ErrorCode::sandbox_unavailable,
                fmt::format("landlock: cannot add a rule for {}: {}", path, std::strerror(errno)));
  return {};
}

// Read and execute everywhere but beneath `hidden`. Landlock only grants, and a grant on a
// directory covers all beneath it, so "/ except ~/.ssh" is spelled out: every proper ancestor of
// a hidden path gets no read rule itself, each of its other entries gets one (siblings, found
// now). Names stay listable everywhere (READ_DIR on /: `ls ~` works); contents of hidden paths
// do not open. An entry that appears in such an ancestor after the run started is unreadable
// too: the list is the one of the moment the sandbox was built.
Result<void> add_read_rules(int ruleset, const std::vector<std::string>& hidden, __u64 handled) {
  if (hidden.empty()) return add_path_rule(ruleset, "/", kReadExecute, handled, true);
  BERTH_TRY(add_path_rule(ruleset, "/", LANDLOCK_ACCESS_FS_READ_DIR, handled, true));
  std::set<std::string> hide(hidden.begin(), hidden.end());
  std::set<std::string> ancestors;
  for (const auto& path : hidden)
    for (auto at = path.rfind('/'); at != std::string::npos; at = path.rfind('/', at - 1)) {
      ancestors.insert(at == 0 ? "/" : path.substr(0, at));
      if (at == 0) break;
    }
  for (const auto& dir : ancestors) {
    DIR* listing = ::opendir(dir.c_str());
    if (listing == nullptr) {
      // An ancestor of a hidden path that does not exist: nothing beneath it to grant.
      if (errno == ENOENT || errno == ENOTDIR) continue;
      return fail(ErrorCode::sandbox_unavailable,
                  fmt::format("landlock: cannot list {}: {}", dir, std::strerror(errno)));
    }
    std::vector<std::string> entries;
    while (const dirent* entry = ::readdir(listing)) {
      std::string name = entry->d_name;
      if (name == "." || name == "..") continue;
      std::string child = dir == "/" ? "/" + name : dir + "/" + name;
      if (!hide.count(child) && !ancestors.count(child)) entries.push_back(std::move(child));
    }
    ::closedir(listing);
    for (const auto& child : entries)
      BERTH_TRY(add_path_rule(ruleset, child, kReadExecute, handled, false, false));
  }
  return {};
}

} // namespace

int landlock_abi() {
  long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi < 0 ? 0 : static_cast<int>(abi);
}

Result<LandlockRuleset> build_landlock_ruleset(const std::vector<std::string>& writable_dirs,
                                               const std::vector<std::string>& hidden,
                                               bool restrict_tcp, bool scope_abstract_unix) {
  LandlockRuleset result;
  result.abi = landlock_abi();
  if (result.abi < 1)
    return fail(ErrorCode::sandbox_unavailable,
                "landlock is not available in this kernel (Linux >= 5.13 with lsm=landlock)",
                "enable Landlock (boot with lsm=...,landlock), use --sandbox=bwrap, or "
                "--sandbox=best-effort");

  RulesetAttr attr{};
  attr.handled_access_fs = handled_fs(result.abi);
  result.truncate = result.abi >= 3;
  if (restrict_tcp && result.abi >= 4) {
    // Handled with no rule granting any port: every TCP bind and connect is refused.
    attr.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
    result.tcp = true;
  }
  if (result.abi >= 6) {
    // Signals stay inside the sandbox whatever the network policy: the command must not be able
    // to kill or stop the user's other processes. Abstract unix sockets are network.
    attr.scoped = LANDLOCK_SCOPE_SIGNAL;
    result.signals = true;
    if (scope_abstract_unix) {
      attr.scoped |= LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
      result.abstract_unix = true;
    }
  }
  long fd = ::syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (fd < 0)
    return fail(ErrorCode::sandbox_unavailable,
                fmt::format("landlock: cannot create a ruleset (abi {}): {}", result.abi,
                            std::strerror(errno)));
  result.fd = UniqueFd(static_cast<int>(fd));

  const __u64 handled = attr.handled_access_fs;
  result.handled_fs = handled;
  BERTH_TRY(add_read_rules(result.fd.get(), hidden, handled));
  for (const auto& dir : writable_dirs)
    BERTH_TRY(add_path_rule(result.fd.get(), dir, handled, handled, true));
  for (const char* device : kWritableDevices)
    BERTH_TRY(add_path_rule(result.fd.get(), device, kDeviceRights | LANDLOCK_ACCESS_FS_READ_DIR,
                            handled, false));
  return result;
}

int landlock_restrict_self(int ruleset_fd) {
  if (::syscall(SYS_landlock_restrict_self, ruleset_fd, 0) != 0) return errno;
  return 0;
}

int landlock_allow_beneath_in_child(int ruleset_fd, const char* path, uint64_t access) {
  int fd = ::open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errno;
  landlock_path_beneath_attr rule{};
  rule.allowed_access = access;
  rule.parent_fd = fd;
  int error =
      ::syscall(SYS_landlock_add_rule, ruleset_fd, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) == 0
          ? 0
          : errno;
  ::close(fd);
  return error;
}

} // namespace berth::sandbox

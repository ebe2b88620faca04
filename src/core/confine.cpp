// Confined file access: the kernel resolves every path beneath the root (openat2 with
// RESOLVE_BENEATH), so a `..`, an absolute symlink or a symlink swapped in between a check and the
// open fails instead of leaving the root. A realpath-then-open prefix check has a window the swap
// races through; openat2 has none, because there is no separate check.
#include "core/confine.hpp"

#include "core/sandbox_internal.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <random>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#else
struct open_how {
  __u64 flags;
  __u64 mode;
  __u64 resolve;
};
#define RESOLVE_NO_XDEV 0x01
#define RESOLVE_NO_MAGICLINKS 0x02
#define RESOLVE_NO_SYMLINKS 0x04
#define RESOLVE_BENEATH 0x08
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif

namespace berth {
namespace {

using sandbox::UniqueFd;

// RESOLVE_BENEATH: no component may leave the directory (`..` above it, an absolute path or
// symlink, a symlink to outside). RESOLVE_NO_MAGICLINKS: no /proc/self/fd/N or /proc/self/root
// jump, should the root contain a procfs.
constexpr __u64 kResolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;

Error escape(const std::string& relative, std::string why) {
  return Error{ErrorCode::escape_refused,
               fmt::format("{}: {}", relative.empty() ? "(empty path)" : relative, why),
               "give a path relative to the workspace that stays inside it",
               std::nullopt,
               {relative}};
}

// Reject what the kernel would also reject, with a clearer message; the kernel stays the judge.
Result<void> check_relative(const std::string& relative) {
  if (relative.empty()) return tl::unexpected(escape(relative, "empty path"));
  if (relative.front() == '/') return tl::unexpected(escape(relative, "absolute path"));
  if (relative.find('\0') != std::string::npos)
    return tl::unexpected(escape(relative, "NUL in path"));
  return {};
}

Result<UniqueFd> open_root(const std::string& root) {
  int fd = ::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return fail(errno == ENOENT ? ErrorCode::not_found : ErrorCode::io_error,
                fmt::format("cannot open {}: {}", root, std::strerror(errno)));
  return UniqueFd(fd);
}

// openat2 beneath `dirfd`; an escape attempt comes back as escape_refused.
Result<UniqueFd> openat2_beneath(int dirfd, const std::string& relative, __u64 flags, __u64 mode) {
  open_how how{};
  how.flags = flags | O_CLOEXEC;
  how.mode = (flags & O_CREAT) ? mode : 0; // openat2 refuses a mode without O_CREAT
  how.resolve = kResolve;
  for (int attempt = 0;; ++attempt) {
    long fd = ::syscall(SYS_openat2, dirfd, relative.c_str(), &how, sizeof how);
    if (fd >= 0) return UniqueFd(static_cast<int>(fd));
    int error = errno;
    // EAGAIN: a rename elsewhere raced the `..` check; the kernel asks us to try again.
    if (error == EAGAIN && attempt < 64) continue;
    if (error == EINTR) continue;
    switch (error) {
    case EXDEV:
      return tl::unexpected(escape(relative, "leaves the root"));
    case ELOOP:
      return tl::unexpected(escape(relative, "a symlink that cannot be followed"));
    case ENOENT:
      return fail(ErrorCode::not_found, fmt::format("{}: no such file", relative),
                  "check the path: it is relative to the workspace's top folder");
    case ENOTDIR:
      return fail(
          ErrorCode::not_found,
          fmt::format("{}: a part of the path before its last is a file, not a folder", relative),
          "check the path: list the folder to see what is there");
    case ENAMETOOLONG:
      return fail(ErrorCode::usage, fmt::format("{}: name too long", relative),
                  "a file name is at most 255 bytes and a path at most 4095");
    case EACCES:
    case EPERM:
      return fail(ErrorCode::io_error, fmt::format("{}: permission denied", relative),
                  "the file or a folder on its path is not readable or writable to berth: check "
                  "its permissions");
    case ENOSYS:
      return fail(ErrorCode::io_error, "openat2 is not available (Linux >= 5.6 is needed)",
                  "confined access refuses to fall back to an unsafe path check");
    default:
      return fail(ErrorCode::io_error, fmt::format("{}: {}", relative, std::strerror(error)),
                  "check the path and the file system (nothing was changed)");
    }
  }
}

// A write goes only to a regular file with one name: writing through a second hard link would
// change a file outside the root that shares the inode.
Result<void> check_writable(int fd, const std::string& relative) {
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    return fail(ErrorCode::io_error, fmt::format("{}: {}", relative, std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) return tl::unexpected(escape(relative, "not a regular file"));
  if (st.st_nlink > 1)
    return tl::unexpected(escape(relative, "a file with more than one hard link"));
  return {};
}

std::pair<std::string, std::string> split_parent(const std::string& relative) {
  std::string path = relative;
  while (path.size() > 1 && path.back() == '/')
    path.pop_back();
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return {".", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

Result<void> write_all(int fd, const std::string& content, const std::string& relative) {
  size_t done = 0;
  while (done < content.size()) {
    ssize_t w = ::write(fd, content.data() + done, content.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0)
      return fail(ErrorCode::io_error, fmt::format("{}: {}", relative, std::strerror(errno)));
    done += static_cast<size_t>(w);
  }
  return {};
}

// Make each missing directory of `parent`, one component at a time, every step opened beneath the
// root by the kernel: a component that is a symlink pointing out fails the next openat2, so no
// directory is ever made outside.
Result<void> make_directories_beneath(int root_fd, const std::string& parent) {
  if (parent == "." || parent.empty()) return {};
  std::string so_far;
  size_t start = 0;
  while (start <= parent.size()) {
    size_t slash = parent.find('/', start);
    std::string part = parent.substr(start, slash == std::string::npos ? slash : slash - start);
    start = slash == std::string::npos ? parent.size() + 1 : slash + 1;
    if (part.empty() || part == ".") continue;
    std::string next = so_far.empty() ? part : so_far + "/" + part;
    auto here = openat2_beneath(root_fd, next, O_PATH | O_DIRECTORY, 0);
    if (!here) {
      if (here.error().code != ErrorCode::not_found) return tl::unexpected(here.error());
      auto dir = BERTH_TRY(
          openat2_beneath(root_fd, so_far.empty() ? "." : so_far, O_PATH | O_DIRECTORY, 0));
      if (::mkdirat(dir.get(), part.c_str(), 0755) != 0 && errno != EEXIST)
        return fail(ErrorCode::io_error, fmt::format("{}: {}", next, std::strerror(errno)));
    }
    so_far = next;
  }
  return {};
}

} // namespace

Result<void> delete_beneath(const std::string& root, const std::string& relative) {
  BERTH_TRY(check_relative(relative));
  auto split = split_parent(relative);
  if (split.second.empty() || split.second == "." || split.second == "..")
    return tl::unexpected(escape(relative, "not a file name"));
  auto root_fd = BERTH_TRY(open_root(root));
  auto dir = BERTH_TRY(openat2_beneath(root_fd.get(), split.first, O_PATH | O_DIRECTORY, 0));
  struct stat st {};
  if (::fstatat(dir.get(), split.second.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return fail(errno == ENOENT ? ErrorCode::not_found : ErrorCode::io_error,
                fmt::format("{}: {}", relative, std::strerror(errno)));
  if (S_ISDIR(st.st_mode))
    return fail(ErrorCode::usage, fmt::format("{}: a directory", relative),
                "delete the files in it one by one");
  // unlinkat removes the name in the directory we resolved beneath the root: a symlink goes,
  // what it points to stays; a hard link's other names (outside, maybe) keep the data.
  if (::unlinkat(dir.get(), split.second.c_str(), 0) != 0)
    return fail(errno == ENOENT ? ErrorCode::not_found : ErrorCode::io_error,
                fmt::format("{}: {}", relative, std::strerror(errno)));
  return {};
}

Result<std::vector<DirEntry>> list_beneath(const std::string& root, const std::string& relative) {
  std::string path = relative.empty() ? "." : relative;
  BERTH_TRY(check_relative(path));
  auto root_fd = BERTH_TRY(open_root(root));
  auto dir = BERTH_TRY(openat2_beneath(root_fd.get(), path, O_RDONLY | O_DIRECTORY, 0));
  int fd = ::dup(dir.get());
  DIR* d = fd < 0 ? nullptr : ::fdopendir(fd);
  if (!d) {
    if (fd >= 0) ::close(fd);
    return fail(ErrorCode::io_error, fmt::format("{}: {}", path, std::strerror(errno)));
  }
  std::vector<DirEntry> entries;
  while (struct dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    DirEntry entry{name, "other", 0};
    struct stat st {};
    if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
      if (S_ISREG(st.st_mode)) {
        entry.type = "file";
        entry.size = st.st_size;
      } else if (S_ISDIR(st.st_mode)) {
        entry.type = "dir";
      } else if (S_ISLNK(st.st_mode)) {
        entry.type = "symlink";
      }
    }
    entries.push_back(std::move(entry));
  }
  ::closedir(d);
  std::sort(entries.begin(), entries.end(),
            [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  return entries;
}

Result<int> open_beneath(const std::string& root, const std::string& relative, Access access) {
  BERTH_TRY(check_relative(relative));
  auto dir = BERTH_TRY(open_root(root));
  // O_NONBLOCK: opening a FIFO planted in the root must not hang us; it is cleared below.
  __u64 flags = O_NOCTTY | O_NONBLOCK;
  switch (access) {
  case Access::read:
    flags |= O_RDONLY;
    break;
  case Access::write:
    flags |= O_WRONLY;
    break; // truncated only once it is known to be safe
  case Access::create:
    flags |= O_WRONLY | O_CREAT | O_EXCL;
    break;
  }
  auto fd = BERTH_TRY(openat2_beneath(dir.get(), relative, flags, 0644));
  if (access == Access::read) {
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
      return tl::unexpected(escape(relative, "not a regular file"));
  } else {
    BERTH_TRY(check_writable(fd.get(), relative));
    if (access == Access::write && ::ftruncate(fd.get(), 0) != 0)
      return fail(ErrorCode::io_error, fmt::format("{}: {}", relative, std::strerror(errno)));
  }
  ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  return fd.release();
}

Result<std::string> read_beneath(const std::string& root, const std::string& relative) {
  UniqueFd fd(BERTH_TRY(open_beneath(root, relative, Access::read)));
  std::string content;
  char buf[65536];
  for (;;) {
    ssize_t r = ::read(fd.get(), buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0)
      return fail(ErrorCode::io_error, fmt::format("{}: {}", relative, std::strerror(errno)));
    if (r == 0) break;
    content.append(buf, static_cast<size_t>(r));
  }
  return content;
}

Result<void> write_beneath(const std::string& root, const std::string& relative,
                           const std::string& content, bool make_parents) {
  BERTH_TRY(check_relative(relative));
  // (Not a structured binding: the lambda below captures `name`, which clang 14 cannot do.)
  auto split = split_parent(relative);
  const std::string& parent = split.first;
  const std::string& name = split.second;
  if (name.empty() || name == "." || name == "..")
    return tl::unexpected(escape(relative, "not a file name"));
  auto root_fd = BERTH_TRY(open_root(root));
  if (make_parents) BERTH_TRY(make_directories_beneath(root_fd.get(), parent));
  // The directory is resolved once, by the kernel, beneath the root; everything after works on
  // names inside that directory fd, which no later rename or symlink can redirect.
  auto dir = BERTH_TRY(openat2_beneath(root_fd.get(), parent, O_RDONLY | O_DIRECTORY, 0));

  mode_t mode = 0644;
  struct stat st {};
  if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    // Renaming over a symlink would replace the link, not write where it points: refuse rather
    // than surprise.
    if (S_ISLNK(st.st_mode))
      return tl::unexpected(escape(relative, "a symlink (write its target's path instead)"));
    if (!S_ISREG(st.st_mode)) return tl::unexpected(escape(relative, "not a regular file"));
    if (st.st_nlink > 1)
      return tl::unexpected(escape(relative, "a file with more than one hard link"));
    mode = st.st_mode & 07777;
    // Read-only to its owner: someone meant it not to change. The rename below would replace it
    // all the same, so the mode is checked here.
    if (!(mode & S_IWUSR))
      return fail(
          ErrorCode::read_only_file,
          fmt::format("{}: read-only (mode {:o}); berth does not rewrite it", relative, mode),
          "leave it, or make it writable first (chmod u+w) if it is meant to change; "
          "nothing was changed");
  } else if (errno != ENOENT) {
    return fail(ErrorCode::io_error, fmt::format("{}: {}", relative, std::strerror(errno)));
  }

  std::random_device random;
  std::string temp;
  UniqueFd out;
  for (int attempt = 0; !out; ++attempt) {
    temp = fmt::format(".{}.berth-{:08x}", name.substr(0, 200), random());
    int fd = ::openat(dir.get(), temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                      mode);
    if (fd >= 0) {
      out = UniqueFd(fd);
    } else if (errno != EEXIST || attempt > 16) {
      return fail(ErrorCode::io_error, fmt::format("{}: cannot create a temporary file: {}",
                                                   relative, std::strerror(errno)));
    }
  }
  auto written = [&]() -> Result<void> {
    BERTH_TRY(write_all(out.get(), content, relative));
    if (::fchmod(out.get(), mode) != 0 || ::fsync(out.get()) != 0)
      return fail(ErrorCode::io_error, fmt::format("{}: {}", relative, std::strerror(errno)));
    if (::renameat(dir.get(), temp.c_str(), dir.get(), name.c_str()) != 0)
      return fail(ErrorCode::io_error, fmt::format("{}: {}", relative, std::strerror(errno)));
    return {};
  }();
  if (!written) {
    ::unlinkat(dir.get(), temp.c_str(), 0);
    return written;
  }
  ::fsync(dir.get());
  return {};
}

} // namespace berth

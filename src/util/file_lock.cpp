#include "util/file_lock.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

namespace util {

tl::expected<FileLock, std::string> FileLock::acquire(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return tl::unexpected(fmt::format("cannot open lock {}: {}", path, std::strerror(errno)));
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    int saved = errno;
    ::close(fd);
    return tl::unexpected(fmt::format("cannot lock {}: {}", path, std::strerror(saved)));
  }
  return FileLock(fd);
}

tl::expected<std::optional<FileLock>, std::string> FileLock::try_acquire(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return tl::unexpected(fmt::format("cannot open lock {}: {}", path, std::strerror(errno)));
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    int saved = errno;
    ::close(fd);
    if (saved == EWOULDBLOCK) return std::optional<FileLock>();
    return tl::unexpected(fmt::format("cannot lock {}: {}", path, std::strerror(saved)));
  }
  return std::optional<FileLock>(FileLock(fd));
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);
}

} // namespace util

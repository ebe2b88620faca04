// An exclusive advisory lock on a file (flock), released when the object dies.
//
// flock locks belong to the open file description, so they vanish with the process: a crashed
// holder can never leave a stale lock behind (unlike git's O_EXCL *.lock files).
#pragma once

#include <optional>
#include <string>
#include <tl/expected.hpp>

namespace util {

class FileLock {
public:
  /// Block until the lock at `path` (created if missing) is ours.
  static tl::expected<FileLock, std::string> acquire(const std::string& path);
  /// The lock at `path` if nobody holds it now; none (without waiting) when someone does.
  static tl::expected<std::optional<FileLock>, std::string> try_acquire(const std::string& path);

  FileLock(FileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileLock& operator=(FileLock&&) = delete;
  FileLock(const FileLock&) = delete;
  ~FileLock();

private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_;
};

} // namespace util

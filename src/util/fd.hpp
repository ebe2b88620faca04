// An owned file descriptor: closed when it goes out of scope, so that no early return leaks one.
#pragma once

#include <unistd.h>
#include <utility>

namespace util {

class Fd {
public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  /// Give up ownership without closing.
  int release() { return std::exchange(fd_, -1); }
  /// Close it now (if open), ignoring what close(2) says.
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  /// Close it now and say whether close(2) succeeded: it reports delayed write errors (NFS,
  /// quotas), so a file written through it is only whole once this is true. True when not open.
  bool close() {
    int fd = std::exchange(fd_, -1);
    return fd < 0 || ::close(fd) == 0;
  }

private:
  int fd_ = -1;
};

} // namespace util

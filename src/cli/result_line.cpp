#include "cli/result_line.hpp"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <iostream>
#include <optional>
#include <poll.h>
#include <unistd.h>

namespace cli {

StdoutTail::~StdoutTail() {
  if (watching_) (void)finish();
}

void StdoutTail::start() {
  std::cout.flush();
  std::fflush(stdout);
  if (::isatty(STDOUT_FILENO)) {
    unseen_ = true;
    return;
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    unseen_ = true;
    return;
  }
  real_ = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  // dup2 leaves fd 1 without close-on-exec: the command inherits the pipe as its stdout.
  if (real_ < 0 || ::dup2(fds[1], STDOUT_FILENO) < 0) {
    if (real_ >= 0) ::close(real_);
    real_ = -1;
    ::close(fds[0]);
    ::close(fds[1]);
    unseen_ = true;
    return;
  }
  ::close(fds[1]);
  read_ = fds[0];
  watching_ = true;
  thread_ = std::thread([this] { forward(); });
}

// Everything read goes out at once: the command's output is not held back. Once the command
// ended, a process it left in the background may still hold the pipe: berth forwards what comes
// within a short while, then closes it (that process's later writes fail, as they would on a
// closed terminal).
void StdoutTail::forward() {
  using Clock = std::chrono::steady_clock;
  std::optional<Clock::time_point> ended_at;
  char buf[65536];
  // The thread owns the reading end: closing it is what tells a writer nobody reads any more.
  struct Closer {
    int& fd;
    ~Closer() {
      ::close(fd);
      fd = -1;
    }
  } closer{read_};
  for (;;) {
    if (ending_ && !ended_at) ended_at = Clock::now();
    if (ended_at && Clock::now() - *ended_at > std::chrono::seconds(1)) return;
    pollfd p{read_, POLLIN, 0};
    int ready = ::poll(&p, 1, 100);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return;
    if (ready == 0) {
      if (ending_) return; // quiet since the command ended
      continue;
    }
    ssize_t r = ::read(read_, buf, sizeof buf);
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (r <= 0) return; // every writer closed it
    any_ = true;
    last_ = buf[r - 1];
    for (ssize_t done = 0; done < r;) {
      ssize_t w = ::write(real_, buf + done, static_cast<size_t>(r - done));
      if (w < 0 && errno == EINTR) continue;
      // The reader went away (`| head -1`): stop reading too, so the command gets EPIPE (or
      // SIGPIPE) as it would have on berth's stdout, rather than writing on forever.
      if (w < 0) return;
      done += w;
    }
  }
}

bool StdoutTail::finish() {
  if (!watching_) return unseen_;
  watching_ = false;
  // fd 1 is the real stdout again; the pipe's writing end is now only the command's leftovers'.
  // The thread still writes to real_ until it ends: a copy of it stays open until then.
  ::dup2(real_, STDOUT_FILENO);
  ending_ = true;
  thread_.join();
  ::close(real_);
  real_ = -1;
  return any_ && last_ != '\n';
}

} // namespace cli

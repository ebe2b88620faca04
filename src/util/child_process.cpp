#include "util/child_process.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <pthread.h>
#include <set>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace util {
namespace {

struct Pipe {
  int read = -1, write = -1;
  bool open() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return false;
    read = fds[0];
    write = fds[1];
    return true;
  }
};

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

std::vector<std::string> build_env(const std::map<std::string, std::optional<std::string>>& over) {
  std::vector<std::string> result;
  std::set<std::string> seen;
  for (char** e = environ; e && *e; ++e) {
    std::string entry = *e;
    auto eq = entry.find('=');
    std::string key = eq == std::string::npos ? entry : entry.substr(0, eq);
    if (over.count(key)) continue;
    result.push_back(std::move(entry));
  }
  for (const auto& [key, value] : over)
    if (value) {
      std::string entry = key;
      entry += '=';
      entry += *value;
      result.push_back(std::move(entry));
    }
  return result;
}

// Writing to a pipe whose reader is gone raises SIGPIPE, which would kill a caller that did not
// ignore it (the library has no say over that): block it in this thread for the write and swallow
// the one the write raised, so the caller sees EPIPE instead.
ssize_t write_without_sigpipe(int fd, const char* data, size_t size) {
  sigset_t pipe_set, old;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  ::pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  ssize_t w = ::write(fd, data, size);
  int saved = errno;
  if (w < 0 && saved == EPIPE) {
    timespec zero{0, 0};
    while (::sigtimedwait(&pipe_set, nullptr, &zero) < 0 && errno == EINTR) {
    }
  }
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  errno = saved;
  return w;
}

} // namespace

Child::Child(pid_t pid, int in_fd, int out_fd, int err_fd) noexcept
    : pid_(pid), in_fd_(in_fd), out_fd_(out_fd), err_fd_(err_fd) {}

Child::Child(Child&& other) noexcept
    : pid_(other.pid_), in_fd_(other.in_fd_), out_fd_(other.out_fd_), err_fd_(other.err_fd_),
      unread_(std::move(other.unread_)) {
  other.pid_ = -1;
  other.in_fd_ = other.out_fd_ = other.err_fd_ = -1;
}

Child::~Child() {
  close_fd(in_fd_);
  close_fd(out_fd_);
  close_fd(err_fd_);
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

tl::expected<ProcessResult, std::string>
Child::communicate(const std::string& input, const OutputSink& on_output,
                   std::optional<std::chrono::steady_clock::time_point> deadline, bool group,
                   const std::function<bool()>& stop, bool keep_output) {
  ProcessResult result;
  // Asked to stop: TERM now (a command may clean up), and the deadline becomes a 2 s grace
  // after which kill_at_deadline below KILLs what is left.
  bool stopping = false;
  auto check_stop = [&] {
    if (stopping || !stop || !stop()) return;
    stopping = true;
    if (group) ::kill(-pid_, SIGTERM);
    ::kill(pid_, SIGTERM);
    auto grace = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    deadline = deadline ? std::min(*deadline, grace) : grace;
  };
  // Past the deadline the child is killed, never waited for: a git blocked on a FIFO would
  // otherwise hold berth forever. Its whole group goes, so no filter or hook it started lingers.
  auto kill_at_deadline = [&]() -> bool {
    if (!deadline || std::chrono::steady_clock::now() < *deadline) return false;
    if (group) ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    result.timed_out = true;
    close_fd(in_fd_);
    close_fd(out_fd_);
    close_fd(err_fd_);
    return true;
  };
  size_t written = 0;
  if (in_fd_ >= 0 && input.empty()) close_fd(in_fd_);
  // A blocking write of more than a pipe buffer would wait for the child to read it all, while the
  // child may be waiting for us to drain its stdout: write only what fits, then poll again.
  if (in_fd_ >= 0) ::fcntl(in_fd_, F_SETFL, ::fcntl(in_fd_, F_GETFL) | O_NONBLOCK);
  // poll() all three pipes so that neither side can block the other on a full pipe buffer.
  while (in_fd_ >= 0 || out_fd_ >= 0 || err_fd_ >= 0) {
    pollfd fds[3];
    int n = 0;
    int* owners[3];
    std::string* sinks[3] = {nullptr, nullptr, nullptr};
    if (in_fd_ >= 0) {
      fds[n] = {in_fd_, POLLOUT, 0};
      owners[n++] = &in_fd_;
    }
    if (out_fd_ >= 0) {
      fds[n] = {out_fd_, POLLIN, 0};
      sinks[n] = &result.out;
      owners[n++] = &out_fd_;
    }
    if (err_fd_ >= 0) {
      fds[n] = {err_fd_, POLLIN, 0};
      sinks[n] = &result.err;
      owners[n++] = &err_fd_;
    }
    int wait_ms = stop && !stopping ? 100 : -1;
    check_stop();
    if (deadline) {
      if (kill_at_deadline()) break;
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          *deadline - std::chrono::steady_clock::now());
      wait_ms = static_cast<int>(
          std::clamp<long long>(left.count() + 1, 1, stop && !stopping ? 100 : 1000));
    }
    int ready = ::poll(fds, n, wait_ms);
    if (ready == 0) continue;
    if (ready < 0) {
      if (errno == EINTR) continue;
      return tl::unexpected(fmt::format("poll: {}", std::strerror(errno)));
    }
    for (int i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      if (sinks[i] == nullptr) {
        // stdin: write as much as fits; EPIPE means the child stopped reading, which is its call.
        ssize_t w =
            write_without_sigpipe(*owners[i], input.data() + written, input.size() - written);
        if (w > 0) written += static_cast<size_t>(w);
        if (w < 0 && errno != EINTR && errno != EAGAIN) close_fd(*owners[i]);
        if (written == input.size()) close_fd(*owners[i]);
        continue;
      }
      char buf[65536];
      ssize_t r = ::read(*owners[i], buf, sizeof buf);
      if (r > 0) {
        if (keep_output) sinks[i]->append(buf, static_cast<size_t>(r));
        if (on_output)
          on_output(sinks[i] == &result.out ? 1 : 2, std::string_view(buf, static_cast<size_t>(r)));
      } else if (r == 0 || (errno != EINTR && errno != EAGAIN))
        close_fd(*owners[i]);
    }
  }
  // The streams may close (a child that closed them, or exec'd something that did) while the
  // child still runs: the deadline holds for its end too.
  std::optional<tl::expected<ProcessResult, std::string>> waited;
  // A child that closed its streams but runs on can still be stopped.
  while (stop && !stopping && !result.timed_out) {
    bool still = false;
    waited = wait(std::chrono::milliseconds(100), &still);
    if (!waited || !still) break;
    waited.reset();
    check_stop();
  }
  if (!waited && deadline && !result.timed_out) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        *deadline - std::chrono::steady_clock::now());
    bool still = false;
    waited = wait(std::max(left, std::chrono::milliseconds(0)), &still);
    if (waited && still) {
      result.timed_out = true;
      if (group) ::kill(-pid_, SIGKILL);
      ::kill(pid_, SIGKILL);
      waited.reset();
    }
  }
  if (!waited) waited = wait();
  auto& ended = *waited;
  if (!ended) return tl::unexpected(ended.error());
  result.exit_code = ended->exit_code;
  result.signal = ended->signal;
  return result;
}

bool Child::send(std::string_view data) {
  while (!data.empty()) {
    if (in_fd_ < 0) return false;
    ssize_t w = write_without_sigpipe(in_fd_, data.data(), data.size());
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data.remove_prefix(static_cast<size_t>(w));
  }
  return true;
}

std::optional<std::string> Child::read_line() {
  for (;;) {
    if (auto nl = unread_.find('\n'); nl != std::string::npos) {
      std::string line = unread_.substr(0, nl);
      unread_.erase(0, nl + 1);
      return line;
    }
    if (out_fd_ < 0) return std::nullopt;
    char buf[4096];
    ssize_t r = ::read(out_fd_, buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      close_fd(out_fd_);
      return std::nullopt;
    }
    unread_.append(buf, static_cast<size_t>(r));
  }
}

namespace {

// fork + exec, for what posix_spawn cannot do: a new session, closing inherited descriptors, a
// setup step (sandboxing) in the child. An exec failure comes back through a close-on-exec pipe.
tl::expected<pid_t, int> fork_exec(const SpawnOptions& options, int in_fd, int out_fd, int err_fd,
                                   char* const* argv, char* const* envp) {
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) return tl::unexpected(errno);
  // Everything the child needs is prepared here: between fork and exec only syscalls.
  const char* cwd = options.cwd.empty() ? nullptr : options.cwd.c_str();
  pid_t parent = ::getpid();
  int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  // Without a setup step the child makes only syscalls before exec, so it may share our memory
  // until then (vfork, as posix_spawn does): a git call costs no copy of our page tables.
  pid_t pid = options.child_setup ? ::fork() : ::vfork();
  if (pid < 0) {
    int saved = errno;
    ::close(report[0]);
    ::close(report[1]);
    if (null_fd >= 0) ::close(null_fd);
    return tl::unexpected(saved);
  }
  if (pid == 0) {
    auto die = [&](int error) {
      ssize_t ignored = ::write(report[1], &error, sizeof error);
      (void)ignored;
      ::_exit(127);
    };
    // The parent may have died before prctl took effect: then no signal comes, and the child
    // must not go on as an orphan.
    if (options.parent_death_signal != 0 &&
        (::prctl(PR_SET_PDEATHSIG, options.parent_death_signal) != 0 || ::getppid() != parent))
      ::_exit(128 + options.parent_death_signal);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGCHLD, SIGQUIT, SIGHUP, SIGTTOU, SIGTTIN})
      ::signal(sig, SIG_DFL);
    if (options.group == ProcessGroup::own && ::setpgid(0, 0) != 0) die(errno);
    if (options.group == ProcessGroup::session && ::setsid() < 0) die(errno);
    auto wire = [&](Stream mode, int pipe_end, int target) {
      int source = mode == Stream::pipe ? pipe_end : mode == Stream::null ? null_fd : -1;
      if (source >= 0 && ::dup2(source, target) < 0) die(errno);
    };
    wire(options.in, in_fd, 0);
    wire(options.out, out_fd, 1);
    wire(options.err, err_fd, 2);
    if (cwd && ::chdir(cwd) != 0) die(errno);
    if (options.child_setup) {
      int error = options.child_setup();
      if (error != 0) die(error);
    }
    if (options.close_other_fds) {
      // Keep only stdio and the report pipe (close-on-exec anyway).
      for (int fd = 3; fd < 1024 * 64; ++fd) {
        if (fd == report[1]) continue;
        if (::fcntl(fd, F_GETFD) >= 0) ::close(fd);
        if (fd > 256 && fd > report[1]) {
          ::syscall(SYS_close_range, static_cast<unsigned>(fd), ~0u, 0u);
          break;
        }
      }
    }
    ::execvpe(argv[0], argv, envp);
    die(errno);
  }
  ::close(report[1]);
  if (null_fd >= 0) ::close(null_fd);
  int error = 0;
  ssize_t n;
  while ((n = ::read(report[0], &error, sizeof error)) < 0 && errno == EINTR) {
  }
  ::close(report[0]);
  if (n == static_cast<ssize_t>(sizeof error)) {
    int status;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return tl::unexpected(error);
  }
  return pid;
}

} // namespace

tl::expected<Child, std::string> spawn(const SpawnOptions& options) {
  if (options.argv.empty()) return tl::unexpected(std::string("spawn: empty argv"));
  bool needs_fork = options.child_setup || options.close_other_fds ||
                    options.group == ProcessGroup::session || options.parent_death_signal != 0;
  Pipe in, out, err;
  auto fail = [&](const std::string& what) {
    for (int* fd : {&in.read, &in.write, &out.read, &out.write, &err.read, &err.write})
      close_fd(*fd);
    return tl::unexpected(fmt::format("cannot run {}: {}", options.argv[0], what));
  };
  if ((options.in == Stream::pipe && !in.open()) || (options.out == Stream::pipe && !out.open()) ||
      (options.err == Stream::pipe && !err.open()))
    return fail(std::strerror(errno));

  std::vector<std::string> env_strings = build_env(options.env);
  std::vector<char*> envp;
  envp.reserve(env_strings.size() + 1);
  for (auto& s : env_strings)
    envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<char*> argv;
  for (const auto& a : options.argv)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  // A process the kernel cannot make now (EAGAIN: the user's process limit, RLIMIT_NPROC, or the
  // system's reached) is asked for again a few times over about a second: the limit is usually
  // reached for a moment (a command's tree being reaped, other processes of the same user), and
  // the call may be the one that ends a session or records the agent's work.
  constexpr int kSpawnTries = 8;
  auto backoff = [](int attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5 << attempt)); // 5 ms ... 640 ms
  };
  if (needs_fork) {
    auto pid = fork_exec(options, in.read, out.write, err.write, argv.data(), envp.data());
    for (int attempt = 0; !pid && pid.error() == EAGAIN && attempt < kSpawnTries; ++attempt) {
      backoff(attempt);
      pid = fork_exec(options, in.read, out.write, err.write, argv.data(), envp.data());
    }
    if (!pid) return fail(std::strerror(pid.error()));
    close_fd(in.read);
    close_fd(out.write);
    close_fd(err.write);
    return Child(*pid, in.write, out.read, err.read);
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  auto wire = [&](Stream mode, int pipe_end, int target, int flags) {
    if (mode == Stream::pipe)
      posix_spawn_file_actions_adddup2(&actions, pipe_end, target);
    else if (mode == Stream::null)
      posix_spawn_file_actions_addopen(&actions, target, "/dev/null", flags, 0);
  };
  wire(options.in, in.read, 0, O_RDONLY);
  wire(options.out, out.write, 1, O_WRONLY);
  wire(options.err, err.write, 2, O_WRONLY);
  if (!options.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, options.cwd.c_str());

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  sigset_t empty, defaults;
  sigemptyset(&empty);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGCHLD);
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  if (options.group == ProcessGroup::own) {
    flags |= POSIX_SPAWN_SETPGROUP;
    posix_spawnattr_setpgroup(&attr, 0);
  }
  posix_spawnattr_setflags(&attr, flags);

  pid_t pid = -1;
  int rc = ::posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
  for (int attempt = 0; rc == EAGAIN && attempt < kSpawnTries; ++attempt) {
    backoff(attempt);
    rc = ::posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
  }
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    errno = rc;
    return fail(std::strerror(rc));
  }
  close_fd(in.read);
  close_fd(out.write);
  close_fd(err.write);
  return Child(pid, in.write, out.read, err.read);
}

bool spawn_detached(std::vector<std::string> argv, std::string cwd) {
  SpawnOptions options;
  options.argv = std::move(argv);
  options.cwd = std::move(cwd);
  options.in = options.out = options.err = Stream::null;
  options.group = ProcessGroup::session;
  options.close_other_fds = true;
  auto child = spawn(options);
  if (!child) return false;
  child->detach();
  return true;
}

tl::expected<ProcessResult, std::string>
Child::wait(std::optional<std::chrono::milliseconds> timeout, bool* timed_out) {
  if (timed_out) *timed_out = false;
  ProcessResult result;
  int status = 0;
  if (timeout) {
    // A pidfd becomes readable when the child exits: poll it with the deadline.
    int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
    auto deadline = std::chrono::steady_clock::now() + *timeout;
    for (;;) {
      pid_t done = ::waitpid(pid_, &status, WNOHANG);
      if (done == pid_) break;
      if (done < 0 && errno != EINTR) {
        if (pidfd >= 0) ::close(pidfd);
        return tl::unexpected(fmt::format("waitpid: {}", std::strerror(errno)));
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        if (pidfd >= 0) ::close(pidfd);
        if (timed_out) *timed_out = true;
        return result;
      }
      if (pidfd >= 0) {
        pollfd pfd{pidfd, POLLIN, 0};
        ::poll(&pfd, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
      } else {
        ::usleep(10000);
      }
    }
    if (pidfd >= 0) ::close(pidfd);
  } else {
    while (::waitpid(pid_, &status, 0) < 0) {
      if (errno != EINTR) return tl::unexpected(fmt::format("waitpid: {}", std::strerror(errno)));
    }
  }
  pid_ = -1;
  if (WIFSIGNALED(status))
    result.signal = WTERMSIG(status);
  else
    result.exit_code = WEXITSTATUS(status);
  return result;
}

void Child::signal_group(int sig) const {
  if (pid_ > 0) ::kill(-pid_, sig);
}

tl::expected<ProcessResult, std::string> run(const SpawnOptions& options) {
  auto child = spawn(options);
  if (!child) return tl::unexpected(child.error());
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (options.timeout) deadline = std::chrono::steady_clock::now() + *options.timeout;
  return child->communicate(options.input, {}, deadline, options.group != ProcessGroup::same);
}

std::string find_in_path(const std::string& program) {
  if (program.find('/') != std::string::npos)
    return ::access(program.c_str(), X_OK) == 0 ? program : std::string();
  const char* path = ::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return {};
}

} // namespace util

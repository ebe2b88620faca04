// Run a child process: argv only, never a shell. Started with vfork + exec (fork when the child
// has a set-up step), so that it gets the parent-death signal: a killed berth takes its git down.
//
// The options (SpawnOptions) mirror watchman's ChildProcess: say what the child's stdin, stdout and
// stderr are, where it runs and what it adds to the environment, then either wait() for it or
// communicate() with it (feed stdin, collect stdout and stderr without deadlocking on full pipes).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <tl/expected.hpp>
#include <vector>

namespace util {

enum class Stream { inherit, null, pipe };
/// same: the child shares our process group; own: its own group (so a timeout or Ctrl-C can reach
/// its whole tree); session: a new session without a controlling terminal (no TIOCSTI injection).
enum class ProcessGroup { same, own, session };

struct SpawnOptions {
  std::vector<std::string> argv;
  std::string cwd;                                       // empty: ours
  std::map<std::string, std::optional<std::string>> env; // value: set; nullopt: unset
  Stream in = Stream::null;
  Stream out = Stream::pipe;
  Stream err = Stream::pipe;
  std::string input; // fed to stdin when in == pipe
  ProcessGroup group = ProcessGroup::same;
  /// Close every inherited descriptor beyond 0, 1 and 2 in the child.
  bool close_other_fds = false;
  /// Runs in the child after fork and before exec (after the streams are wired, before the other
  /// descriptors are closed). It must make only async-signal-safe calls; a non-zero return is an
  /// errno value, and the spawn then fails with that error instead of running the program.
  std::function<int()> child_setup;
  /// For run(): give up on a child that has not ended after this long. The child (its whole
  /// process group when it has its own) is then killed, and the result says timed_out.
  std::optional<std::chrono::milliseconds> timeout;
  /// Send the child this signal when the thread that started it ends (berth killed by SIGKILL):
  /// a git berth started must not run on and change things under the next command's recovery.
  /// 0: none. Forces fork + exec (posix_spawn cannot set it).
  int parent_death_signal = 0;
};

struct ProcessResult {
  int exit_code = -1; // valid when signal == 0
  int signal = 0;     // the signal that killed it, or 0
  std::string out;
  std::string err;
  bool timed_out = false; // killed at SpawnOptions::timeout (or communicate's deadline)

  bool ok() const { return signal == 0 && exit_code == 0; }
  /// Shell-style status: the exit code, or 128 + signal.
  int status() const { return signal != 0 ? 128 + signal : exit_code; }
};

/// A started child. Destroying a Child that was not waited for kills and reaps it.
class Child {
public:
  Child(pid_t pid, int in_fd, int out_fd, int err_fd) noexcept;
  Child(Child&& other) noexcept;
  Child& operator=(Child&&) = delete;
  Child(const Child&) = delete;
  ~Child();

  pid_t pid() const { return pid_; }
  /// Wait for the child to end, with its streams not piped (inherited or null). With a timeout,
  /// gives up after it: *timed_out is set and the child is left running.
  tl::expected<ProcessResult, std::string>
  wait(std::optional<std::chrono::milliseconds> timeout = {}, bool* timed_out = nullptr);
  /// Let the child run on after this object dies (it is not killed; init reaps it once we exit).
  void detach() { pid_ = -1; }
  /// Send `sig` to the child's process group (it must have its own: ProcessGroup::own/session).
  void signal_group(int sig) const;
  /// Receives each chunk of output as it arrives: the child's fd (1 or 2) and the bytes.
  using OutputSink = std::function<void(int fd, std::string_view chunk)>;
  /// Write `input` to stdin (then close it) while collecting stdout and stderr; then wait.
  /// `on_output`, when given, also sees every chunk as it arrives (for streaming progress).
  /// With a deadline, a child still running at it is killed (its process group when `group`)
  /// and the result has timed_out set.
  /// `stop`, when given, is asked at least every 100 ms: once it says true the child (its group
  /// when `group`) gets SIGTERM, and SIGKILL if it has not ended 2 s later. `keep_output` false:
  /// the result's out and err stay empty (a sink that caps what it keeps sees everything).
  tl::expected<ProcessResult, std::string>
  communicate(const std::string& input = {}, const OutputSink& on_output = {},
              std::optional<std::chrono::steady_clock::time_point> deadline = {},
              bool group = false, const std::function<bool()>& stop = {}, bool keep_output = true);
  /// For a conversation with a child that answers line by line (`git update-ref --stdin`): write
  /// all of `data` to its stdin (false when it stopped reading), then read one line of its stdout
  /// (without the newline; nullopt once it closed stdout). Its stderr is left to communicate().
  bool send(std::string_view data);
  std::optional<std::string> read_line();

private:
  pid_t pid_;
  int in_fd_, out_fd_, err_fd_;
  std::string unread_; // stdout read past the last line read_line() returned
};

/// Start a child. The error is a message naming the program and the reason.
tl::expected<Child, std::string> spawn(const SpawnOptions& options);

/// Start a background process nobody waits for: a session of its own (no terminal, no signal of
/// the caller's group), stdio on /dev/null, no inherited descriptor. Whether it started.
bool spawn_detached(std::vector<std::string> argv, std::string cwd = {});

/// Start, feed, collect and wait in one call.
tl::expected<ProcessResult, std::string> run(const SpawnOptions& options);

/// Search PATH for an executable; empty when not found.
std::string find_in_path(const std::string& program);

} // namespace util

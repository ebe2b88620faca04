#include "cli/foreground.hpp"

#include <array>
#include <memory>
#include <optional>
#include <signal.h>
#include <unistd.h>

namespace cli {

namespace {

// Signals berth receives while the command runs go to the command's whole process group.
volatile sig_atomic_t g_child_group = 0;

void forward_signal(int sig) {
  if (g_child_group > 0) ::kill(-g_child_group, sig);
}

class ForwardSignals {
public:
  explicit ForwardSignals(pid_t group) {
    g_child_group = group;
    struct sigaction sa {};
    sa.sa_handler = forward_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    for (size_t i = 0; i < kSignals.size(); ++i)
      ::sigaction(kSignals[i], &sa, &saved_[i]);
  }
  ~ForwardSignals() {
    for (size_t i = 0; i < kSignals.size(); ++i)
      ::sigaction(kSignals[i], &saved_[i], nullptr);
    g_child_group = 0;
  }
  ForwardSignals(const ForwardSignals&) = delete;
  ForwardSignals& operator=(const ForwardSignals&) = delete;

private:
  static constexpr std::array<int, 4> kSignals{SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  std::array<struct sigaction, 4> saved_{};
};

// Hand the terminal to the command's group for the duration, and take it back.
class TerminalForeground {
public:
  explicit TerminalForeground(pid_t group) {
    if (!::isatty(STDIN_FILENO) || ::tcgetpgrp(STDIN_FILENO) != ::getpgrp()) return;
    ::setpgid(group, group); // the child does it too; whoever is first wins the race
    give(group);
    active_ = true;
  }
  ~TerminalForeground() {
    if (active_) give(::getpgrp());
  }
  TerminalForeground(const TerminalForeground&) = delete;
  TerminalForeground& operator=(const TerminalForeground&) = delete;

private:
  static void give(pid_t group) {
    // A background group that calls tcsetpgrp gets SIGTTOU: ignore it for the call.
    struct sigaction ignore {
    }, saved{};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    ::sigaction(SIGTTOU, &ignore, &saved);
    ::tcsetpgrp(STDIN_FILENO, group);
    ::sigaction(SIGTTOU, &saved, nullptr);
  }
  bool active_ = false;
};

// What a run holds between on_start and on_end.
struct Foreground {
  std::optional<TerminalForeground> terminal;
  std::optional<ForwardSignals> forward;
};

} // namespace

void own_signals_and_terminal(berth::RunOptions& options) {
  auto held = std::make_shared<Foreground>();
  options.on_start = [held](int group, bool own_session) {
    if (!own_session) held->terminal.emplace(group);
    held->forward.emplace(group);
  };
  options.on_end = [held] {
    held->forward.reset();
    held->terminal.reset();
  };
}

namespace {
volatile sig_atomic_t g_stop = 0;
void note_stop(int) {
  g_stop = 1;
}
} // namespace

bool stop_requested() {
  static bool armed = [] {
    struct sigaction sa {};
    sa.sa_handler = note_stop;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    for (int sig : {SIGINT, SIGTERM, SIGHUP})
      ::sigaction(sig, &sa, nullptr);
    return true;
  }();
  return armed && g_stop != 0;
}

} // namespace cli

// `berth --json run|shell`: the command and berth share stdout, so berth's result must be a line
// a script can find whatever the command printed: one compact line, always the last, always
// starting on a line of its own (docs/run.md).
#pragma once

#include <atomic>
#include <thread>

namespace cli {

/// Watches what a command writes to berth's stdout, to know whether it ended with a newline.
/// While watching, fd 1 is a pipe berth forwards (unbuffered, chunk by chunk) to the real
/// stdout; a terminal is left alone (the command keeps its terminal; berth then cannot see the
/// output and assumes the worst).
class StdoutTail {
public:
  StdoutTail() = default;
  ~StdoutTail();
  StdoutTail(const StdoutTail&) = delete;
  StdoutTail& operator=(const StdoutTail&) = delete;

  /// Interpose the pipe (no-op on a terminal, or when it cannot be made).
  void start();
  /// After the command ended: give fd 1 back and forward what is left (what the command's
  /// background processes still write, for a short while). Whether berth must write a newline
  /// before its own line: the output seen did not end with one, or berth could not see it.
  bool finish();

private:
  void forward();
  int real_ = -1; ///< the real stdout, while fd 1 is the pipe
  int read_ = -1; ///< the pipe's reading end
  std::thread thread_;
  std::atomic<bool> ending_{false};
  bool watching_ = false;
  bool any_ = false;    ///< the command wrote something
  char last_ = '\n';    ///< the last byte it wrote
  bool unseen_ = false; ///< a terminal: the output was not seen
};

} // namespace cli

// fork's live progress on stderr (docs/fork.md, "Progress"): one line per attempt, redrawn in
// place on a terminal; a line per start and end when stderr is not a terminal; NDJSON events
// under --json; nothing under --quiet.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <thread>

namespace cli {

class ForkProgress {
public:
  ForkProgress(bool quiet);
  ~ForkProgress() { finish(); }
  ForkProgress(const ForkProgress&) = delete;
  ForkProgress& operator=(const ForkProgress&) = delete;

  /// The library's event (OperationContext::on_event); called from the attempts' threads.
  void on_event(std::string_view type, const nlohmann::json& fields);
  /// The last redraw (each attempt's final line stays on the screen), then no more.
  void finish();

private:
  struct Row {
    std::string name, state, line;
    std::chrono::steady_clock::time_point started{};
    int64_t duration_ms = -1; ///< once it ended
    int exit_status = -1;
  };
  void redraw(); // with mutex_ held
  void tick();

  enum class Mode { quiet, events, lines, live } mode_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::map<int, Row> rows_; ///< by attempt number
  size_t drawn_ = 0;        ///< lines drawn last time (the cursor is below them)
  bool done_ = false;
  std::thread ticker_; ///< redraws the elapsed times while attempts run (live mode)
};

} // namespace cli

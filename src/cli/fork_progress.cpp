#include "cli/fork_progress.hpp"

#include "cli/render.hpp"

#include <cstdlib>
#include <fmt/format.h>
#include <unistd.h>

namespace cli {

namespace {

void progress_write(const std::string& text) {
  for (size_t at = 0; at < text.size();) {
    ssize_t n = ::write(STDERR_FILENO, text.data() + at, text.size() - at);
    if (n <= 0) return;
    at += static_cast<size_t>(n);
  }
}

std::string elapsed_text(int64_t ms) {
  return fmt::format("{:.1f}s", static_cast<double>(ms) / 1000.0);
}

} // namespace

ForkProgress::ForkProgress(bool quiet)
    : mode_(quiet            ? Mode::quiet
            : event_stream() ? Mode::events
            : ::isatty(STDERR_FILENO) && std::getenv("TERM") &&
                    std::string_view(std::getenv("TERM")) != "dumb"
                ? Mode::live
                : Mode::lines) {}

void ForkProgress::on_event(std::string_view type, const nlohmann::json& fields) {
  if (mode_ == Mode::quiet) return;
  // The output lines are for the terminal's display only: the log file has the output.
  if (mode_ == Mode::events) {
    if (type == "attempt_output") return;
    // An attempt's event is about the attempt's workspace (`name`), not the fork's.
    nlohmann::json event = fields;
    if (event.contains("name")) event["workspace"] = event["name"];
    emit_event(type, std::move(event));
    return;
  }
  std::lock_guard lock(mutex_);
  if (done_) return;
  int attempt = fields.value("attempt", 0);
  Row& row = rows_[attempt];
  row.name = fields.value("name", std::string());
  if (type == "attempt_output") {
    row.line = fields.value("line", std::string());
  } else {
    row.state = fields.value("state", std::string());
    if (type == "attempt_started") row.started = std::chrono::steady_clock::now();
    if (type == "attempt_finished") {
      row.duration_ms = fields.value("duration_ms", int64_t{0});
      if (fields.contains("exit_status")) row.exit_status = fields["exit_status"].get<int>();
    }
  }
  if (mode_ == Mode::lines) {
    if (type == "attempt_output") return;
    std::string what = row.exit_status >= 0 && type == "attempt_finished"
                           ? fmt::format("exit {}", row.exit_status)
                           : row.state;
    progress_write(fmt::format("berth: {} {}{}\n", printable(row.name), what,
                               type == "attempt_finished" && row.duration_ms > 0
                                   ? fmt::format(" ({})", elapsed_text(row.duration_ms))
                                   : std::string()));
    return;
  }
  redraw();
  if (!ticker_.joinable()) ticker_ = std::thread([this] { tick(); });
}

void ForkProgress::redraw() {
  // The width of stderr's terminal: a line never wraps (a wrapped line would break the cursor
  // movement that redraws it).
  size_t columns = terminal_width_of(STDERR_FILENO);
  size_t name_width = 0;
  for (const auto& [attempt, row] : rows_)
    name_width = std::max(name_width, display_width(printable(row.name)));
  auto now = std::chrono::steady_clock::now();
  std::string out;
  // Back to the first line drawn, then every line again (a new attempt adds one at the end).
  if (drawn_ > 0) out += fmt::format("\r\x1b[{}A", drawn_);
  for (const auto& [attempt, row] : rows_) {
    bool running = row.duration_ms < 0 && row.state == "running";
    std::string state = row.exit_status >= 0 ? fmt::format("exit {}", row.exit_status) : row.state;
    int64_t ms =
        row.duration_ms >= 0 ? row.duration_ms
        : running ? std::chrono::duration_cast<std::chrono::milliseconds>(now - row.started).count()
                  : 0;
    std::string name = printable(row.name);
    std::string text = fmt::format("{}{}  {:<11} {:>7}  {}", name,
                                   std::string(name_width - display_width(name), ' '), state,
                                   ms > 0 ? elapsed_text(ms) : "-", printable(row.line));
    // One column short of the width: a line that fills it wraps on some terminals.
    out += "\r\x1b[2K" + shorten(text, columns > 1 ? columns - 1 : columns) + "\n";
  }
  drawn_ = rows_.size();
  progress_write(out);
}

void ForkProgress::tick() {
  std::unique_lock lock(mutex_);
  while (!done_) {
    wake_.wait_for(lock, std::chrono::milliseconds(500));
    if (!done_) redraw();
  }
}

void ForkProgress::finish() {
  {
    std::lock_guard lock(mutex_);
    if (done_) return;
    if (mode_ == Mode::live && !rows_.empty()) redraw();
    done_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

} // namespace cli

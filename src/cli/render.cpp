#include "cli/render.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fmt/format.h>
#include <set>
#include <unistd.h>

namespace cli {

bool use_color() {
  static const bool on = [] {
    const char* no_color = std::getenv("NO_COLOR");
    const char* term = std::getenv("TERM");
    return ::isatty(STDOUT_FILENO) && !(no_color && *no_color) &&
           !(term && std::strcmp(term, "dumb") == 0);
  }();
  return on;
}

std::string paint(const std::string& text, const char* sgr) {
  if (!use_color()) return text;
  return fmt::format("\033[{}m{}\033[0m", sgr, text);
}

std::string age(int64_t unix_seconds, int64_t now) {
  if (unix_seconds <= 0) return "-";
  int64_t s = std::max<int64_t>(0, now - unix_seconds);
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m", s / 60);
  if (s < 86400) return fmt::format("{}h", s / 3600);
  return fmt::format("{}d", s / 86400);
}

int64_t unix_time(const std::string& iso) {
  std::tm tm{};
  const char* end = ::strptime(iso.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (!end || *end) return 0;
  return static_cast<int64_t>(::timegm(&tm));
}

std::string short_sha(const std::string& sha) {
  return sha.substr(0, 10);
}

namespace {
// Display width, ignoring SGR escape sequences.
size_t visible_width(const std::string& s) {
  size_t width = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\033') {
      while (i < s.size() && s[i] != 'm')
        ++i;
      continue;
    }
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) ++width;
  }
  return width;
}
} // namespace

std::string table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size(); ++c) {
      if (widths.size() <= c) widths.push_back(0);
      widths[c] = std::max(widths[c], visible_width(row[c]));
    }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(widths[c] - visible_width(row[c]) + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out += line + "\n";
  }
  return out;
}

namespace {
std::set<std::string>& printed_warnings() {
  static std::set<std::string> printed;
  return printed;
}
} // namespace

void print_warning(const std::string& text) {
  if (!printed_warnings().insert(text).second) return;
  if (event_stream()) {
    emit_event("warning", {{"message", text}});
    return;
  }
  std::fprintf(stderr, "berth: warning: %s\n", text.c_str());
}

void mark_warning_printed(const std::string& text) {
  printed_warnings().insert(text);
}

namespace {
struct EventStream {
  bool on = false;
  nlohmann::json workspace;
};
EventStream& events() {
  static EventStream stream;
  return stream;
}

// UTC with milliseconds: events of one command often share a second, and a reader orders them.
std::string event_time() {
  auto now = std::chrono::system_clock::now();
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  ::gmtime_r(&seconds, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return fmt::format("{}.{:03}Z", buf, ms % 1000);
}
} // namespace

void use_event_stream(nlohmann::json workspace) {
  events().on = true;
  events().workspace = std::move(workspace);
}

bool event_stream() {
  return events().on;
}

void emit_event(std::string_view type, nlohmann::json fields) {
  nlohmann::json event = {
      {"type", type}, {"workspace", events().workspace}, {"time", event_time()}};
  for (auto& [key, value] : fields.items())
    if (key != "type") event[key] = std::move(value);
  // Paths, names and a set-up command's output are bytes, not necessarily UTF-8: such bytes
  // become U+FFFD rather than an exception that would end the command with its work done.
  std::string line = event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

} // namespace cli

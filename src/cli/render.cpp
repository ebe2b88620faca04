#include "cli/render.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <set>
#include <sys/ioctl.h>
#include <unistd.h>
#include <utility>
#include <vector>

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

// The code point at text[i] (advancing i past it), or -1 for a byte that does not start a
// well-formed UTF-8 sequence (i then advances one byte).
int32_t next_code_point(const std::string& text, size_t& i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char b = byte(i);
  int len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
  if (len == 0 || i + len > text.size()) {
    ++i;
    return -1;
  }
  int32_t cp = len == 1 ? b : b & (0x7F >> len);
  for (int k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) {
      ++i;
      return -1;
    }
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  i += len;
  return cp;
}

// Columns of one code point, after wcwidth's rules for the ranges names and paths meet: no
// locale is needed (berth never calls setlocale).
int columns_of(int32_t cp) {
  if (cp < 0) return 1; // shown as '?'
  if ((cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x200B && cp <= 0x200F) ||
      (cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0x20D0 && cp <= 0x20FF))
    return 0;
  if ((cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0x303E) ||
      (cp >= 0x3041 && cp <= 0x33FF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
      (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xA000 && cp <= 0xA4CF) ||
      (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
      (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
      (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
      (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD))
    return 2;
  return 1;
}

// An SGR escape (ESC [ ... m) starting at text[i]: its length, else 0.
size_t sgr_length(const std::string& text, size_t i) {
  if (text[i] != '\033' || i + 1 >= text.size() || text[i + 1] != '[') return 0;
  size_t end = text.find('m', i);
  return end == std::string::npos ? 0 : end - i + 1;
}

} // namespace

size_t display_width(const std::string& text) {
  size_t width = 0;
  for (size_t i = 0; i < text.size();) {
    if (size_t sgr = sgr_length(text, i)) {
      i += sgr;
      continue;
    }
    width += static_cast<size_t>(columns_of(next_code_point(text, i)));
  }
  return width;
}

std::string shorten(const std::string& text, size_t width, bool middle) {
  if (display_width(text) <= width) return text;
  if (width == 0) return "";
  const std::string ellipsis = "\u2026";
  // The characters with their widths, to cut between them (never inside one).
  std::vector<std::pair<std::string, int>> chars;
  for (size_t i = 0; i < text.size();) {
    size_t start = i;
    int cols = columns_of(next_code_point(text, i));
    chars.emplace_back(text.substr(start, i - start), cols);
  }
  size_t budget = width - 1, head_budget = middle ? budget - budget / 2 : budget;
  size_t tail_budget = budget - head_budget;
  std::string head, tail;
  size_t used = 0, h = 0;
  for (; h < chars.size() && used + chars[h].second <= head_budget; ++h) {
    head += chars[h].first;
    used += chars[h].second;
  }
  used = 0;
  for (size_t t = chars.size(); t > h && used + chars[t - 1].second <= tail_budget; --t) {
    tail.insert(0, chars[t - 1].first);
    used += chars[t - 1].second;
  }
  return head + ellipsis + tail;
}

std::string printable(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    size_t start = i;
    int32_t cp = next_code_point(text, i);
    if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0))
      out += '?';
    else
      out.append(text, start, i - start);
  }
  return out;
}

size_t terminal_columns() {
  if (!::isatty(STDOUT_FILENO)) return 0;
  return terminal_width_of(STDOUT_FILENO);
}

size_t terminal_width_of(int fd) {
  if (const char* columns = std::getenv("COLUMNS")) {
    char* end = nullptr;
    long n = std::strtol(columns, &end, 10);
    if (end != columns && *end == '\0' && n > 0 && n < 100000) return static_cast<size_t>(n);
  }
  struct winsize ws {};
  if (::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

std::string table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size(); ++c) {
      if (widths.size() <= c) widths.push_back(0);
      widths[c] = std::max(widths[c], display_width(row[c]));
    }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(widths[c] - display_width(row[c]) + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string nested_work_line(const nlohmann::json& n) {
  std::vector<std::string> what;
  if (n.value("new_commit", false)) what.push_back("new commits");
  if (n.value("modified", false)) what.push_back("uncommitted changes");
  if (n.value("untracked", false)) what.push_back("untracked files");
  return fmt::format("{} {}: {}",
                     n.value("kind", std::string()) == "submodule" ? "submodule"
                                                                   : "nested repository",
                     printable(n.value("path", std::string())), fmt::join(what, ", "));
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

void print_warning(const std::string& text, const std::string& workspace) {
  if (workspace.empty() || !event_stream()) {
    print_warning(text);
    return;
  }
  // Each attempt's once: two attempts may well warn alike. The command's own repetition of it
  // (a fork lists its attempts' warnings in its outcome) is not said again.
  printed_warnings().insert(text);
  if (!printed_warnings().insert(workspace + '\0' + text).second) return;
  emit_event("warning", {{"message", text}, {"workspace", workspace}});
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
  // `time` is `timestamp` under its first name, kept for the readers of earlier versions (the
  // schema is stable: fields are never renamed or removed).
  std::string timestamp = event_time();
  nlohmann::json event = {{"type", type},
                          {"workspace", events().workspace},
                          {"timestamp", timestamp},
                          {"time", timestamp}};
  for (auto& [key, value] : fields.items())
    if (key != "type") event[key] = std::move(value);
  // Paths, names and a set-up command's output are bytes, not necessarily UTF-8: such bytes
  // become U+FFFD rather than an exception that would end the command with its work done.
  std::string line = event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

} // namespace cli

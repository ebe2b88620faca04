#include "util/process_info.hpp"

#include "util/atomic_file.hpp"

#include <cerrno>
#include <cstdlib>
#include <signal.h>
#include <string>

namespace util {

int64_t process_start_time(pid_t pid) {
  auto stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return 0;
  // The command name (field 2) may contain spaces and parentheses: count fields after the last ')'.
  auto close = stat->rfind(')');
  if (close == std::string::npos) return 0;
  size_t pos = close + 2; // field 3 starts here
  for (int field = 3; field < 22; ++field) {
    pos = stat->find(' ', pos);
    if (pos == std::string::npos) return 0;
    ++pos;
  }
  return std::strtoll(stat->c_str() + pos, nullptr, 10);
}

bool process_alive(pid_t pid, int64_t start_time) {
  if (pid <= 0) return false;
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  if (start_time == 0) return true;
  int64_t now = process_start_time(pid);
  return now == 0 || now == start_time;
}

} // namespace util

#include "util/process_info.hpp"

#include "util/atomic_file.hpp"
#include "util/dir.hpp"

#include <cerrno>
#include <cstdlib>
#include <signal.h>
#include <string>
#include <sys/syscall.h>
#include <unistd.h>

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

std::vector<pid_t> processes_working_in(const std::string& dir) {
  std::vector<pid_t> found;
  for (const auto& e : DirEntries("/proc")) {
    std::string name(e.name);
    char* end = nullptr;
    long pid = std::strtol(name.c_str(), &end, 10);
    if (*end != '\0' || pid <= 0 || pid == ::getpid()) continue;
    char buf[4096];
    std::string link = "/proc/" + name + "/cwd";
    ssize_t n = ::readlink(link.c_str(), buf, sizeof buf);
    if (n <= 0) continue;
    std::string cwd(buf, static_cast<size_t>(n));
    if (cwd == dir ||
        (cwd.size() > dir.size() && cwd.compare(0, dir.size(), dir) == 0 && cwd[dir.size()] == '/'))
      found.push_back(static_cast<pid_t>(pid));
  }
  return found;
}

bool file_held_open(const std::string& path) {
  DirEntries proc("/proc");
  if (!proc.is_open()) return true; // cannot tell: held, to be safe
  bool held = false;
  for (auto e = proc.begin(); !held && e != proc.end(); ++e) {
    std::string name(e->name);
    char* end = nullptr;
    long pid = std::strtol(name.c_str(), &end, 10);
    if (*end != '\0' || pid <= 0) continue;
    std::string fd_dir = "/proc/" + name + "/fd";
    for (const auto& f : DirEntries(fd_dir)) {
      if (f.name[0] == '.') continue;
      char buf[4096];
      std::string link = fd_dir + "/" + std::string(f.name);
      ssize_t n = ::readlink(link.c_str(), buf, sizeof buf);
      if (n > 0 && std::string(buf, static_cast<size_t>(n)) == path) {
        held = true;
        break;
      }
    }
  }
  return held;
}

std::string namespace_of(pid_t pid, const char* kind) {
  char buf[256];
  std::string link = pid == 0 ? std::string("/proc/self/ns/") + kind
                              : "/proc/" + std::to_string(pid) + "/ns/" + kind;
  ssize_t n = ::readlink(link.c_str(), buf, sizeof buf);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

int kill_namespace(const std::string& ns, const char* kind) {
  if (ns.empty() || ns == namespace_of(0, kind)) return 0;
  int killed = 0;
  DirEntries proc("/proc");
  for (const auto& e : proc) {
    std::string name(e.name);
    char* end = nullptr;
    long pid = std::strtol(name.c_str(), &end, 10);
    if (*end != '\0' || pid <= 0 || pid == ::getpid()) continue;
    // The pidfd first, the namespace second: a pid reused meanwhile is either not the one the
    // pidfd names (then not in the namespace) or gone (then the signal finds nothing).
    int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, static_cast<pid_t>(pid), 0));
    if (pidfd < 0) continue;
    if (namespace_of(static_cast<pid_t>(pid), kind) == ns &&
        ::syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0) == 0)
      ++killed;
    ::close(pidfd);
  }
  return killed;
}

void stop_processes(const std::vector<pid_t>& pids, int grace_ms) {
  for (pid_t pid : pids)
    ::kill(pid, SIGTERM);
  for (int waited = 0; waited < grace_ms; waited += 20) {
    bool any = false;
    for (pid_t pid : pids)
      if (::kill(pid, 0) == 0) any = true;
    if (!any) return;
    ::usleep(20000);
  }
  for (pid_t pid : pids)
    ::kill(pid, SIGKILL);
}

} // namespace util

#include "util/process_info.hpp"

#include "util/atomic_file.hpp"
#include "util/dir.hpp"

#include <cerrno>
#include <cstdlib>
#include <functional>
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

namespace {

// Each process in /proc (this one too unless `skip_self`), by pid and by its /proc name, until
// `visit` says stop (false). False when /proc cannot be read.
bool for_each_process(bool skip_self, const std::function<bool(pid_t, const std::string&)>& visit) {
  DirEntries proc("/proc");
  if (!proc.is_open()) return false;
  for (const auto& e : proc) {
    std::string name(e.name);
    char* end = nullptr;
    long pid = std::strtol(name.c_str(), &end, 10);
    if (*end != '\0' || pid <= 0 || (skip_self && pid == ::getpid())) continue;
    if (!visit(static_cast<pid_t>(pid), name)) break;
  }
  return true;
}

std::string read_link(const std::string& link) {
  char buf[4096];
  ssize_t n = ::readlink(link.c_str(), buf, sizeof buf);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

} // namespace

std::vector<pid_t> processes_working_in(const std::string& dir) {
  std::vector<pid_t> found;
  (void)for_each_process(true, [&](pid_t pid, const std::string& name) {
    std::string cwd = read_link("/proc/" + name + "/cwd");
    if (!cwd.empty() &&
        (cwd == dir || (cwd.size() > dir.size() && cwd.compare(0, dir.size(), dir) == 0 &&
                        cwd[dir.size()] == '/')))
      found.push_back(pid);
    return true;
  });
  return found;
}

bool file_held_open(const std::string& path) {
  bool held = false;
  bool read = for_each_process(false, [&](pid_t, const std::string& name) {
    std::string fd_dir = "/proc/" + name + "/fd";
    for (const auto& f : DirEntries(fd_dir))
      if (f.name[0] != '.' && read_link(fd_dir + "/" + std::string(f.name)) == path) {
        held = true;
        break;
      }
    return !held;
  });
  return held || !read; // (cannot tell: held, to be safe)
}

std::string namespace_of(pid_t pid, const char* kind) {
  return read_link(pid == 0 ? std::string("/proc/self/ns/") + kind
                            : "/proc/" + std::to_string(pid) + "/ns/" + kind);
}

int kill_namespace(const std::string& ns, const char* kind) {
  if (ns.empty() || ns == namespace_of(0, kind)) return 0;
  int killed = 0;
  (void)for_each_process(true, [&](pid_t pid, const std::string&) {
    // The pidfd first, the namespace second: a pid reused meanwhile is either not the one the
    // pidfd names (then not in the namespace) or gone (then the signal finds nothing).
    int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (pidfd < 0) return true;
    if (namespace_of(pid, kind) == ns &&
        ::syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0) == 0)
      ++killed;
    ::close(pidfd);
    return true;
  });
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

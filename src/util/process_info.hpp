// Is a recorded process still the same running process? A pid alone is not enough (pids are
// reused), so records keep the process start time too.
#pragma once

#include <cstdint>
#include <string>
#include <sys/types.h>
#include <vector>

namespace util {

/// Start time of `pid` in clock ticks since boot (field 22 of /proc/<pid>/stat); 0 if unknown.
int64_t process_start_time(pid_t pid);

/// True when `pid` runs and, if `start_time` is non-zero, started at that time.
bool process_alive(pid_t pid, int64_t start_time);

/// Processes (other than this one) whose current directory is `dir` or beneath it.
std::vector<pid_t> processes_working_in(const std::string& dir);

/// Whether any process we can look at (/proc/PID/fd) holds `path` open. git keeps a lock file
/// open from its creation until it renames it into place, so one nobody holds is stale.
bool file_held_open(const std::string& path);

/// The namespace `kind` ("ipc", "net", ...) of `pid` (0: this process) as the kernel names it
/// ("ipc:[4026532301]"); "" when it cannot be read.
std::string namespace_of(pid_t pid, const char* kind);

/// SIGKILL every process (we may signal) in the namespace `ns` of `kind` — never this process's
/// own namespace, nor "" — and say how many were sent it.
int kill_namespace(const std::string& ns, const char* kind);

/// Send SIGTERM to each pid, give them `grace_ms` to end, then SIGKILL those still alive.
void stop_processes(const std::vector<pid_t>& pids, int grace_ms);

} // namespace util

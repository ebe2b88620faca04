// bubblewrap: the same policy through mount namespaces. The whole filesystem is bound read-only,
// then the writable directories are bound read-write over it; /dev and /proc are fresh (so
// /dev/shm is private and /proc shows only the sandbox's processes).
#include "core/sandbox_internal.hpp"
#include "util/child_process.hpp"
#include "util/paths.hpp"

#include <sys/stat.h>

namespace berth::sandbox {

std::string find_bwrap() {
  return util::find_in_path("bwrap");
}

std::vector<std::string> bwrap_argv(const std::string& bwrap,
                                    const std::vector<std::string>& writable_dirs,
                                    const std::vector<std::string>& hidden,
                                    const std::string& stub_dir, bool unshare_net,
                                    const std::vector<std::string>& unix_covers) {
  std::vector<std::string> argv = {bwrap,
                                   // Dies with berth: no orphaned sandboxed tree.
                                   "--die-with-parent",
                                   // No controlling terminal: no TIOCSTI into the user's shell.
                                   "--new-session",
                                   // Its own user namespace, and none nested inside it: a nested
                                   // namespace's "root" could mount over what we bound.
                                   "--unshare-user", "--disable-userns",
                                   // Only its own processes are visible and signalable.
                                   "--unshare-pid", "--unshare-ipc",
                                   // Run as root, bwrap would keep its capabilities otherwise
                                   // (CAP_SYS_ADMIN could remount the read-only binds).
                                   "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev",
                                   "--proc", "/proc"};
  for (const auto& dir : writable_dirs) {
    argv.push_back("--bind");
    argv.push_back(dir);
    argv.push_back(dir);
  }
  // Each hidden path that exists is covered, read-only, by an empty directory or file of mode
  // 000: it cannot be listed or read (no capability overrides that inside), nor chmod-ed back
  // (read-only mount). After the writable binds, so that they cannot uncover one.
  for (const auto& path : hidden) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) continue;
    argv.push_back("--ro-bind");
    argv.push_back(util::join(stub_dir, S_ISDIR(st.st_mode) ? "dir" : "file"));
    argv.push_back(path);
  }
  // A network namespace with only a loopback interface (bwrap's, or berth's own made before bwrap
  // starts): no TCP, UDP or abstract unix socket reaches the host. Unix sockets by path still
  // would (the filesystem is shared): each the host has bound is covered by the empty file, so a
  // connect there finds no socket.
  if (unshare_net) argv.push_back("--unshare-net");
  {
    for (const auto& path : unix_covers) {
      argv.push_back("--ro-bind");
      argv.push_back(util::join(stub_dir, "file"));
      argv.push_back(path);
    }
  }
  argv.push_back("--");
  return argv;
}

} // namespace berth::sandbox

// berth-fsmonitor: git's fsmonitor hook (protocol version 2) in the git calls berth makes through
// a workspace's shadow index (core/shadow.cpp, use_watcher). It asks the project's watcher what
// changed since git's token and prints the answer, as `berth watch hook` does, in a process that
// starts in a tenth of berth's time: it links libc alone (no shared C++ runtime, nothing of
// berth's), and git runs it without a shell, its path being its whole command. Every status in a
// workspace waits for it.
//
//   berth-fsmonitor 2 TOKEN   (cwd: the work tree; BERTH_WATCH_DIR: the project's common dir;
//                              BERTH_WATCH_HELPER: berth, for anything but the quick answer)
//
// Only the quick answer is made here: a watcher that is running answers within a slice. Anything
// else (no watcher: it must be started; a busy or stopped one: waited for, or killed and
// replaced) is `berth watch hook 2 TOKEN` run in its place (exec), which does all that. Failing
// makes git look at everything itself: slower, never wrong.
#include "core/watch_protocol.hpp"

#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace {

// Long enough for a watcher at work (it answers in well under a millisecond when it has nothing
// new to walk), short enough that a slow one is soon left to berth's patient hook.
constexpr int kQuickMs = 200;

[[noreturn]] void berth_hook(const char* token) {
  const char* helper = std::getenv("BERTH_WATCH_HELPER");
  if (helper && *helper == '/') {
    char* args[] = {const_cast<char*>(helper), const_cast<char*>("watch"),
                    const_cast<char*>("hook"), const_cast<char*>("2"),
                    const_cast<char*>(token),  nullptr};
    ::execv(helper, args);
  }
  std::_Exit(1);
}

bool send_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

} // namespace

int main(int argc, char** argv) {
  // git asks with protocol version 2 (berth configures it); anything else: "not supported".
  if (argc < 3 || std::strcmp(argv[1], "2") != 0) return 1;
  const char* token = argv[2];
  const char* common_dir = std::getenv("BERTH_WATCH_DIR");
  char root[PATH_MAX];
  if (!common_dir || !*common_dir || ::realpath(".", root) == nullptr) return 1;

  int sock = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (sock < 0) berth_hook(token);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  // Abstract namespace: a leading NUL, then the name (as watch.cpp binds it).
  std::string name = berth::watch_address_for(common_dir, ::geteuid());
  size_t n = name.size() < sizeof addr.sun_path - 1 ? name.size() : sizeof addr.sun_path - 1;
  std::memcpy(addr.sun_path + 1, name.data(), n);
  auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
  // No watcher: berth's hook starts one.
  if (::connect(sock, reinterpret_cast<sockaddr*>(&addr), len) != 0) berth_hook(token);
  // Only a watcher of our own user is believed: another user could squat the name.
  struct ucred cred {};
  socklen_t cred_len = sizeof cred;
  if (::getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) != 0 || cred.uid != ::geteuid())
    return 1;
  std::string request = "since\t";
  request += root;
  request += '\t';
  request += token;
  request += '\n';
  if (!send_all(sock, request.data(), request.size())) berth_hook(token);
  ::shutdown(sock, SHUT_WR);

  std::string answer;
  for (;;) {
    pollfd p{sock, POLLIN, 0};
    int r = ::poll(&p, 1, kQuickMs);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) berth_hook(token); // slow (busy, or stopped): berth's hook waits, or replaces it
    char buf[65536];
    ssize_t got = ::read(sock, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) berth_hook(token);
    if (got == 0) break;
    answer.append(buf, static_cast<size_t>(got));
  }
  ::close(sock);
  if (answer.find('\0') == std::string::npos || answer.rfind(berth::kWatchTokenPrefix, 0) != 0)
    return 1;
  return write_all(STDOUT_FILENO, answer.data(), answer.size()) ? 0 : 1;
}

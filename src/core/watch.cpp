#include "core/watch.hpp"

#include "core/watch_protocol.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/child_process.hpp"
#include "util/dir.hpp"
#include "util/fd.hpp"
#include "util/paths.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstddef>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace berth {
namespace {

// IN_CLOSE_WRITE as well as IN_MODIFY: a write through a shared mapping has no event of its own,
// but closing the file it was mapped from does.
constexpr uint32_t kMask = IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_CREATE | IN_DELETE |
                           IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF |
                           IN_DONT_FOLLOW | IN_EXCL_UNLINK | IN_ONLYDIR;
// Beyond this many distinct changed paths in one tree, forget them and answer "/" once.
constexpr size_t kMaxChanged = 100000;
constexpr size_t kMaxRoots = 1024;
constexpr size_t kMaxRequest = size_t{64} * 1024;

using util::Fd;

std::string hex64(uint64_t v) {
  return fmt::format("{:016x}", v);
}

bool same_user(int sock) {
  struct ucred cred {};
  socklen_t len = sizeof cred;
  return ::getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.uid == ::geteuid();
}

socklen_t make_address(const std::string& name, sockaddr_un& addr) {
  std::memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  // Abstract namespace: a leading NUL, no file to clean up, gone with the process.
  size_t n = std::min(name.size(), sizeof addr.sun_path - 1);
  std::memcpy(addr.sun_path + 1, name.data(), n);
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
}

// Read until EOF or `limit` bytes, waiting at most `timeout_ms` for each piece.
bool read_all(int fd, std::string& out, size_t limit, int timeout_ms, char stop = 0) {
  char buf[65536];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > limit) return false;
    if (stop != 0 && out.find(stop) != std::string::npos) return true;
  }
}

// The watcher's pid as the kernel knows it (the process that listens on the socket), or 0.
pid_t peer_pid(int sock) {
  struct ucred cred {};
  socklen_t len = sizeof cred;
  return ::getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 ? cred.pid : 0;
}

// Whether a process can never answer: stopped (SIGSTOP, a debugger), or dead and not yet reaped.
// A busy watcher (walking a large new tree) is running or sleeping, and is waited for.
bool wedged(pid_t pid) {
  auto stat = util::read_file(fmt::format("/proc/{}/stat", pid));
  if (!stat) return false;
  auto close = stat->rfind(')');
  if (close == std::string::npos || close + 2 >= stat->size()) return false;
  char state = (*stat)[close + 2];
  return state == 'T' || state == 't' || state == 'Z' || state == 'X';
}

// Read the watcher's whole answer (until it closes), for at most `timeout_ms` in all; a watcher
// found wedged while we wait is given up on at once (*stuck set).
bool read_answer(int fd, pid_t pid, std::string& out, int timeout_ms, bool* stuck) {
  *stuck = false;
  constexpr int kSliceMs = 50;
  for (int waited = 0;;) {
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, kSliceMs);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return false;
    if (r == 0) {
      waited += kSliceMs;
      if (pid > 0 && wedged(pid)) {
        *stuck = true;
        return false;
      }
      if (waited >= timeout_ms) return false;
      continue;
    }
    char buf[65536];
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;
    out.append(buf, static_cast<size_t>(n));
  }
}

// Replace a wedged watcher: kill it (it is ours: same user, and the one listening on the name)
// and wait, briefly, until it has let go of its name, so the next query starts a fresh one.
void kill_wedged(pid_t pid, const std::string& common_dir) {
  ::kill(pid, SIGCONT); // a stopped process dies of SIGKILL too; CONT only makes it quicker
  ::kill(pid, SIGKILL);
  for (int i = 0; i < 200; ++i) {
    Fd probe(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un addr;
    socklen_t len = make_address(watch_address(common_dir), addr);
    if (probe.get() < 0 || ::connect(probe.get(), reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        peer_pid(probe.get()) != pid)
      return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

} // namespace

// ---- Watcher -------------------------------------------------------------------------------

Watcher::Watcher() {
  fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  uint64_t r = 0;
  if (::getrandom(&r, sizeof r, 0) != sizeof r)
    r = static_cast<uint64_t>(::getpid()) ^
        static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  instance_ = hex64(r);
}

Watcher::~Watcher() {
  if (fd_ >= 0) ::close(fd_);
}

size_t Watcher::blind_count() const {
  auto broken = [](const auto& r) { return r.second->broken; };
  return static_cast<size_t>(std::count_if(roots_.begin(), roots_.end(), broken) +
                             std::count_if(moved_.begin(), moved_.end(), broken));
}

std::string Watcher::token() const {
  return fmt::format("{}{}:{}", kWatchTokenPrefix, instance_, seq_);
}

void Watcher::note(Root& root, const std::string& rel) {
  if (rel.empty() || rel == "/") return;
  root.changed[rel] = ++seq_;
  if (root.changed.size() > kMaxChanged) {
    root.changed.clear();
    root.overflow = seq_;
  }
}

// git forgets what its untracked cache holds of folder `rel` only when told of a path inside it
// ("rel/" alone makes it forget the parent's listing): a folder that came or went, even empty,
// gets such a path. Not a real file; git only looks it up.
void Watcher::note_listing(Root& root, const std::string& rel) {
  note(root, rel + "/.berth-watch");
}

// Watch `rel` and every folder below it. Each folder is watched before it is read, so a
// subfolder made meanwhile is either read here or reported by an event on its parent. With
// `report` (a folder made or moved in after the tree was first watched), everything found is
// reported changed: its files had no event of their own here, and git's untracked cache must
// drop what it remembers of each folder of that name (a path inside a folder is what makes git
// forget that folder's listing; the folder's own path only makes it forget its parent's).
void Watcher::watch_tree(Root& root, const std::string& rel, bool report) {
  std::vector<std::string> todo{rel};
  while (!todo.empty()) {
    std::string dir = std::move(todo.back());
    todo.pop_back();
    std::string path = dir.empty() ? root.path : root.path + "/" + dir;
    int wd = ::inotify_add_watch(fd_, path.c_str(), kMask);
    if (wd < 0) {
      // Gone or replaced by a file meanwhile: its parent's events tell. Anything else (out of
      // watches, permissions) leaves the tree partly blind: answer "/" for it from now on.
      if (errno != ENOENT && errno != ENOTDIR) root.broken = true;
      continue;
    }
    dirs_[wd] = Dir{&root, dir};
    if (dir.empty()) root.wd = wd;
    util::DirEntries d(path);
    for (const auto& e : d) {
      std::string_view name = e.name;
      if (name == ".git") continue;
      bool is_dir = e.type == DT_DIR;
      if (e.type == DT_UNKNOWN) {
        struct stat st;
        is_dir = ::fstatat(d.fd(), std::string(name).c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                 S_ISDIR(st.st_mode);
      }
      std::string path_in = dir.empty() ? std::string(name) : dir + "/" + std::string(name);
      if (report) note(root, is_dir ? path_in + "/" : path_in);
      if (report && is_dir) note_listing(root, path_in);
      if (is_dir) todo.push_back(std::move(path_in));
    }
  }
}

void Watcher::unwatch_tree(Root& root, const std::string& rel) {
  std::string prefix = rel + "/";
  for (auto it = dirs_.begin(); it != dirs_.end();) {
    const Dir& d = it->second;
    if (d.root == &root &&
        (rel.empty() || d.rel == rel || d.rel.compare(0, prefix.size(), prefix) == 0)) {
      ::inotify_rm_watch(fd_, it->first);
      it = dirs_.erase(it);
    } else {
      ++it;
    }
  }
}

void Watcher::forget(const std::string& path) {
  if (auto it = roots_.find(path); it != roots_.end()) drop(*it->second);
}

std::string Watcher::list_roots() const {
  std::string out;
  for (const auto& [path, root] : roots_)
    out += fmt::format("{}\t{}\t{}\n", path, root->dev, root->ino);
  for (const auto& [id, root] : moved_)
    out += fmt::format("\t{}\t{}\n", id.first, id.second);
  return out;
}

bool Watcher::forget_identity(dev_t dev, ino_t ino) {
  drain();
  if (auto it = moved_.find({dev, ino}); it != moved_.end()) {
    drop(*it->second);
    return true;
  }
  for (auto& [path, root] : roots_)
    if (root->dev == dev && root->ino == ino) {
      drop(*root);
      return true;
    }
  return false;
}

// Stop watching a root, wherever it is filed (under its path, or among the moved ones).
void Watcher::drop(Root& root) {
  unwatch_tree(root, "");
  for (auto it = roots_.begin(); it != roots_.end(); ++it)
    if (it->second.get() == &root) {
      roots_.erase(it);
      return;
    }
  for (auto it = moved_.begin(); it != moved_.end(); ++it)
    if (it->second.get() == &root) {
      moved_.erase(it);
      return;
    }
}

// A root renamed to `path` (the folder found there is one moved away from where it was watched):
// filed under its new name. Its watches followed the folder's inode through the rename, so every
// event since it was first watched is still numbered in it, and its tokens stay good.
Watcher::Root* Watcher::moved_to(const std::string& path, const struct stat& st) {
  auto it = moved_.find({st.st_dev, st.st_ino});
  if (it == moved_.end()) return nullptr;
  Root* root = it->second.get();
  root->path = path;
  root->moved = false;
  // Folders made while its name was unknown: watched now, and everything in them reported
  // changed (as for any folder made after the tree was first watched: events in it before its
  // watch are lost, so all it holds counts as changed).
  for (const auto& rel : std::exchange(root->pending, {})) {
    watch_tree(*root, rel, true);
    note(*root, rel + "/");
    note_listing(*root, rel);
  }
  roots_.emplace(path, std::move(it->second));
  moved_.erase(it);
  return root;
}

void Watcher::handle(int wd, uint32_t mask, const std::string& name) {
  if (mask & IN_Q_OVERFLOW) {
    // Events were lost: nothing said before now can be trusted.
    ++seq_;
    for (auto& [path, root] : roots_)
      root->overflow = seq_;
    for (auto& [id, root] : moved_)
      root->overflow = seq_;
    return;
  }
  auto it = dirs_.find(wd);
  if (it == dirs_.end()) return;
  Dir dir = it->second;
  Root& root = *dir.root;
  if (mask & IN_IGNORED) {
    dirs_.erase(it);
    if (wd == root.wd) drop(root);
    return;
  }
  if (mask & IN_DELETE_SELF) {
    // The tree itself went; a folder inside is reported by its parent.
    if (wd == root.wd) drop(root);
    return;
  }
  if (mask & IN_MOVE_SELF) {
    // The tree itself was renamed (a pool slot becoming a workspace, a workspace moved aside by
    // discard): no longer answered for under its old name, but still followed, to be known again
    // by its inode where it is asked about next (moved_to). What happens in it meanwhile is
    // numbered as before.
    if (wd != root.wd) return;
    auto named = roots_.find(root.path);
    if (named == roots_.end() || named->second.get() != &root) return;
    if (moved_.count({root.dev, root.ino})) {
      drop(root);
      return;
    }
    root.moved = true;
    moved_.emplace(std::make_pair(root.dev, root.ino), std::move(named->second));
    roots_.erase(named);
    return;
  }
  if (name.empty()) {
    note(root, dir.rel.empty() ? std::string() : dir.rel + "/");
    return;
  }
  std::string rel = dir.rel.empty() ? name : dir.rel + "/" + name;
  if (mask & IN_ISDIR) {
    if (mask & (IN_MOVED_FROM | IN_DELETE)) unwatch_tree(root, rel);
    if ((mask & (IN_CREATE | IN_MOVED_TO)) && name != ".git") {
      // Renamed, the root's name is not known yet: watched (and all in it reported) once it is.
      if (root.moved)
        root.pending.push_back(rel);
      else
        watch_tree(root, rel, true);
    }
    note(root, rel + "/");
    note_listing(root, rel);
  } else {
    note(root, rel);
  }
}

void Watcher::drain() {
  if (fd_ < 0) return;
  alignas(inotify_event) char buf[64 * 1024];
  for (;;) {
    ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    for (char* p = buf; p < buf + n;) {
      auto* e = reinterpret_cast<inotify_event*>(p);
      std::string name = e->len > 0 ? std::string(e->name) : std::string();
      handle(e->wd, e->mask, name);
      p += sizeof(inotify_event) + e->len;
    }
  }
}

std::string Watcher::since(const std::string& path, const std::string& asked) {
  drain();
  std::string everything = std::string(1, '/') + '\0';
  // The folder now at `path`: a root is answered for only while it is the very folder watched.
  struct stat st {};
  bool here =
      !path.empty() && path[0] == '/' && ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  auto it = roots_.find(path);
  if (it != roots_.end() &&
      (!here || st.st_dev != it->second->dev || st.st_ino != it->second->ino)) {
    drop(*it->second);
    it = roots_.end();
  }
  if (it == roots_.end() && here && moved_to(path, st)) it = roots_.find(path);
  if (it == roots_.end()) {
    if (fd_ < 0 || !here || root_count() >= kMaxRoots) return token() + '\0' + everything;
    auto root = std::make_unique<Root>();
    root->path = path;
    root->dev = st.st_dev;
    root->ino = st.st_ino;
    watch_tree(*root, "", false);
    if (root->wd < 0) {
      unwatch_tree(*root, "");
      return token() + '\0' + everything;
    }
    // Past every token already handed out for this path (it may have been watched before, then
    // moved away and back): those knew nothing of what happened in between.
    root->since = ++seq_;
    roots_.emplace(path, std::move(root));
    return token() + '\0' + everything;
  }
  Root& root = *it->second;
  // "berth:<instance>:<seq>" of this very watcher, not older than what it knows of the tree.
  uint64_t from = 0;
  bool known = false;
  std::string prefix = std::string(kWatchTokenPrefix) + instance_ + ":";
  if (asked.compare(0, prefix.size(), prefix) == 0) {
    const char* digits = asked.c_str() + prefix.size();
    char* end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(digits, &end, 10);
    known = errno == 0 && end != digits && *end == '\0' && v <= seq_;
    from = v;
  }
  if (!known || root.broken || from < root.since || from < root.overflow)
    return token() + '\0' + everything;
  std::string out = token() + '\0';
  for (const auto& [rel, at] : root.changed)
    if (at > from) {
      out += rel;
      out += '\0';
    }
  return out;
}

// ---- the daemon and its clients ------------------------------------------------------------

std::string watch_address(const std::string& common_dir) {
  return watch_address_for(common_dir, ::geteuid());
}

Result<void> watch_serve(const std::string& common_dir, int idle_seconds) {
  Fd listener(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (listener.get() < 0)
    return fail(ErrorCode::io_error, fmt::format("socket: {}", std::strerror(errno)));
  sockaddr_un addr;
  socklen_t len = make_address(watch_address(common_dir), addr);
  if (::bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), len) != 0) {
    if (errno == EADDRINUSE) return {}; // another watcher serves this project
    return fail(ErrorCode::io_error, fmt::format("bind: {}", std::strerror(errno)));
  }
  if (::listen(listener.get(), 64) != 0)
    return fail(ErrorCode::io_error, fmt::format("listen: {}", std::strerror(errno)));
  Watcher watcher;
  if (watcher.fd() < 0)
    return fail(ErrorCode::io_error, fmt::format("inotify: {}", std::strerror(errno)));

  using Clock = std::chrono::steady_clock;
  auto last_query = Clock::now();
  for (;;) {
    pollfd fds[2] = {{listener.get(), POLLIN, 0}, {watcher.fd(), POLLIN, 0}};
    int r = ::poll(fds, 2, 1000);
    if (r < 0 && errno != EINTR)
      return fail(ErrorCode::io_error, fmt::format("poll: {}", std::strerror(errno)));
    // Keep the kernel's queue short, so it does not overflow between queries.
    if (r > 0 && (fds[1].revents & POLLIN)) watcher.drain();
    if (r > 0 && (fds[0].revents & POLLIN)) {
      Fd client(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (client.get() >= 0 && same_user(client.get())) {
        std::string request;
        read_all(client.get(), request, kMaxRequest, 2000, '\n');
        if (auto nl = request.find('\n'); nl != std::string::npos) request.resize(nl);
        auto fields = std::vector<std::string>();
        for (size_t start = 0;;) {
          size_t tab = request.find('\t', start);
          fields.push_back(request.substr(start, tab - start));
          if (tab == std::string::npos) break;
          start = tab + 1;
        }
        std::string answer;
        bool stop = false;
        if (fields[0] == "since" && fields.size() == 3) {
          answer = watcher.since(fields[1], fields[2]);
          last_query = Clock::now();
        } else if (fields[0] == "status") {
          watcher.drain();
          answer = fmt::format("{} {} {} {}\n", ::getpid(), watcher.root_count(),
                               watcher.watch_count(), watcher.blind_count());
        } else if (fields[0] == "roots") {
          watcher.drain();
          answer = watcher.list_roots();
        } else if (fields[0] == "forget" && fields.size() == 3) {
          auto dev = static_cast<dev_t>(std::strtoull(fields[1].c_str(), nullptr, 10));
          auto ino = static_cast<ino_t>(std::strtoull(fields[2].c_str(), nullptr, 10));
          answer = watcher.forget_identity(dev, ino) ? "forgotten\n" : "unknown\n";
        } else if (fields[0] == "stop") {
          answer = "stopping\n";
          stop = true;
        } else {
          answer = "error: unknown request\n";
        }
        write_all(client.get(), answer);
        if (stop) return {};
      }
    }
    // Gone with its project, or when nobody asked for a while.
    if (!util::is_directory(common_dir)) return {};
    // A watcher that follows trees stays a day without a question: its tokens are what keeps
    // the first snapshot of a workspace nobody looked at O(changed) (agents run for hours); one
    // that follows none leaves after `idle_seconds`.
    auto idle = std::chrono::seconds(watcher.root_count() > 0 ? std::max(idle_seconds, 86400)
                                                              : idle_seconds);
    if (Clock::now() - last_query > idle) return {};
  }
}

Result<std::string> watch_ask(const std::string& common_dir, const std::string& request) {
  Fd sock(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (sock.get() < 0)
    return fail(ErrorCode::io_error, fmt::format("socket: {}", std::strerror(errno)));
  sockaddr_un addr;
  socklen_t len = make_address(watch_address(common_dir), addr);
  if (::connect(sock.get(), reinterpret_cast<sockaddr*>(&addr), len) != 0)
    return fail(ErrorCode::not_found, "no watcher runs for this project");
  // Only a watcher of our own user is believed: another user could squat the name.
  if (!same_user(sock.get()))
    return fail(ErrorCode::io_error, "the watcher's socket belongs to another user");
  if (!write_all(sock.get(), request + "\n"))
    return fail(ErrorCode::io_error, "cannot talk to the watcher");
  ::shutdown(sock.get(), SHUT_WR);
  std::string answer;
  // A stopped watcher (SIGSTOP) still accepts connections (the kernel queues them) but never
  // answers: it is seen for what it is within a slice, killed, and the caller goes on without
  // it (a later query starts a new one). A busy one gets 10 s.
  pid_t pid = peer_pid(sock.get());
  bool stuck = false;
  if (!read_answer(sock.get(), pid, answer, 10000, &stuck)) {
    if (!stuck) return fail(ErrorCode::io_error, "the watcher did not answer");
    kill_wedged(pid, common_dir);
    return fail(ErrorCode::not_found,
                fmt::format("the watcher (pid {}) was stopped; berth killed it", pid));
  }
  return answer;
}

void watch_start(const std::string& common_dir) {
  auto self = berth_executable();
  if (!self) return;
  (void)util::spawn_detached({*self, "watch", "serve", common_dir}, "/");
}

Result<std::string> watch_since(const std::string& common_dir, const std::string& root,
                                const std::string& token) {
  auto answer = watch_ask(common_dir, "since\t" + root + "\t" + token);
  if (!answer) return answer;
  if (answer->find('\0') == std::string::npos || answer->rfind(kWatchTokenPrefix, 0) != 0)
    return fail(ErrorCode::io_error, "the watcher's answer is malformed");
  return answer;
}

Result<std::string> watch_hook(const std::string& common_dir, const std::string& root,
                               const std::string& token) {
  auto answer = watch_since(common_dir, root, token);
  if (!answer && answer.error().code == ErrorCode::not_found) {
    watch_start(common_dir);
    for (int i = 0; i < 100 && !answer; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      answer = watch_since(common_dir, root, token);
      if (!answer && answer.error().code != ErrorCode::not_found) break;
    }
  }
  return answer;
}

WatchStatus watch_status(const std::string& common_dir) {
  WatchStatus s;
  s.address = watch_address(common_dir);
  auto answer = watch_ask(common_dir, "status");
  if (!answer) return s;
  long long pid = 0, roots = 0, watches = 0, blind = 0;
  if (std::sscanf(answer->c_str(), "%lld %lld %lld %lld", &pid, &roots, &watches, &blind) >= 3) {
    s.running = true;
    s.pid = pid;
    s.roots = roots;
    s.watches = watches;
    s.blind = blind;
  }
  return s;
}

std::vector<WatchedRoot> watch_roots(const std::string& common_dir) {
  std::vector<WatchedRoot> roots;
  auto answer = watch_ask(common_dir, "roots");
  // An older watcher does not know the request ("error: ..."): nothing to say then.
  if (!answer || answer->rfind("error:", 0) == 0) return roots;
  size_t start = 0;
  for (size_t nl; (nl = answer->find('\n', start)) != std::string::npos; start = nl + 1) {
    std::string line = answer->substr(start, nl - start);
    size_t t2 = line.rfind('\t');
    size_t t1 = t2 == std::string::npos || t2 == 0 ? std::string::npos : line.rfind('\t', t2 - 1);
    if (t1 == std::string::npos) continue;
    roots.push_back({line.substr(0, t1),
                     static_cast<dev_t>(std::strtoull(line.c_str() + t1 + 1, nullptr, 10)),
                     static_cast<ino_t>(std::strtoull(line.c_str() + t2 + 1, nullptr, 10))});
  }
  return roots;
}

bool watch_forget(const std::string& common_dir, const WatchedRoot& root) {
  auto answer = watch_ask(common_dir, fmt::format("forget\t{}\t{}", root.dev, root.ino));
  return answer && *answer == "forgotten\n";
}

WatchStatus watch_status(const Project& project) {
  return watch_status(project.common_dir());
}

bool watch_stop(const Project& project) {
  return watch_stop(project.common_dir());
}

bool watch_stop(const std::string& common_dir) {
  WatchStatus s = watch_status(common_dir);
  if (!s.running) return false;
  (void)watch_ask(common_dir, "stop");
  // Wait until it has let go of its name, so a new one can start at once.
  for (int i = 0; i < 200 && watch_status(common_dir).running; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return true;
}

} // namespace berth

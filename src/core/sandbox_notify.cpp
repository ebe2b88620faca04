// The run's connects, made by berth. With --net=off a unix socket is still reached by its path,
// which no network namespace cuts and Landlock cannot refuse before ABI 9: the covers
// (sandbox_namespaces.cpp, bwrap's --ro-bind) hide the sockets the host has bound when the run
// starts, not one bound a second later, nor one bound by another network namespace. So every
// connect(2) of the run stops at a seccomp user notification, and this supervisor, a thread of
// the berth that waits for the run, makes it on the run's behalf:
//
// - it takes the run's socket (pidfd_getfd: the same open socket, not a copy) and copies the
//   address out of the run's memory once, so nothing the run changes afterwards (another thread
//   rewriting the address, dup2 over the descriptor) reaches what is decided;
// - a unix address by path is resolved as the run sees it (openat2 beneath /proc/PID/root or
//   its working directory, no magic links) to the socket file, and allowed only if a socket of
//   the run's own network namespace is bound to that very file (the namespace's sock_diag table,
//   read through a netlink socket the child opened inside it); berth then connects to the file
//   it resolved (/proc/self/fd/N), never to the path again. Anything else: ECONNREFUSED, as for
//   a path where no socket listens;
// - every other address (inet, abstract, unnamed) is connected as given: the socket was made in
//   the run's namespace, which is all it can reach.
//
// Never SECCOMP_USER_NOTIF_FLAG_CONTINUE: a continued call reads its arguments again, after the
// check. Datagram unix sockets name their destination in every sendto/sendmsg, which no filter
// can see: the filter refuses them under --net=off (sandbox_seccomp.cpp).
//
// The child hands its listener and its netlink socket over before exec: it writes their numbers
// and its pid on a socket pair and waits; the supervisor takes both with pidfd_getfd and answers
// (for each child the sandbox is applied to: one loop serves them all).
// Each notification is answered by a thread of its own, so that a connect that blocks (a full
// backlog the run's server has yet to accept from) holds up no other; a signal to the run's
// thread interrupts its wait as it would a connect of the kernel's, while berth's connect goes
// on (a restarted connect then finds it under way or done, as after an interrupted one).
#include "core/sandbox_internal.hpp"

#include <bit>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <linux/netlink.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <mutex>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <system_error>
#include <thread>
#include <unistd.h>
#include <vector>

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

namespace berth::sandbox {
namespace {

// What the child writes: its pid (berth's pid namespace: the child has entered none) and the
// numbers of its listener and netlink socket.
struct HandOver {
  int32_t pid;
  int32_t listener;
  int32_t diag;
};

int pidfd_open(pid_t pid, unsigned flags) {
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, flags));
}

int pidfd_getfd(int pidfd, int fd) {
  return static_cast<int>(::syscall(SYS_pidfd_getfd, pidfd, fd, 0));
}

// The whole thread group's descriptor table is reached through a thread's pidfd (PIDFD_THREAD,
// Linux 6.9), or through its leader's on older kernels.
util::Fd open_pidfd(pid_t tid) {
  int fd = pidfd_open(tid, PIDFD_THREAD);
  if (fd >= 0 || errno != EINVAL) return util::Fd(fd);
  util::Fd status(::open(fmt::format("/proc/{}/status", tid).c_str(), O_RDONLY | O_CLOEXEC));
  if (!status) return util::Fd();
  char buf[4096];
  ssize_t n = ::read(status.get(), buf, sizeof buf - 1);
  if (n <= 0) return util::Fd();
  buf[n] = '\0';
  const char* tgid = std::strstr(buf, "\nTgid:");
  if (!tgid) return util::Fd();
  return util::Fd(pidfd_open(static_cast<pid_t>(std::atoi(tgid + 6)), 0));
}

// Ask the netlink socket's namespace for all its unix sockets, with the file each is bound to.
bool ask_for_unix_sockets(int diag) {
  struct {
    nlmsghdr header;
    unix_diag_req request;
  } query{};
  query.header.nlmsg_len = sizeof query;
  query.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  query.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  query.request.sdiag_family = AF_UNIX;
  query.request.udiag_states = ~0u;
  query.request.udiag_show = UDIAG_SHOW_VFS;
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  return ::sendto(diag, &query, sizeof query, 0, reinterpret_cast<sockaddr*>(&kernel),
                  sizeof kernel) == static_cast<ssize_t>(sizeof query);
}

// The bound unix sockets of the netlink socket's network namespace: the device and inode of
// each one's socket file (the kernel's encoding of the device; 32 bits of the inode).
std::vector<unix_diag_vfs> bound_sockets(int diag) {
  std::vector<unix_diag_vfs> found;
  if (!ask_for_unix_sockets(diag)) return found;
  char buf[32768];
  for (;;) {
    ssize_t n = ::recv(diag, buf, sizeof buf, 0);
    if (n <= 0) return found;
    // Copied out of the buffer, never cast in place: the kernel's messages are only 4-aligned.
    auto end = static_cast<size_t>(n);
    for (size_t at = 0; at + sizeof(nlmsghdr) <= end;) {
      nlmsghdr header{};
      std::memcpy(&header, buf + at, sizeof header);
      if (header.nlmsg_len < sizeof header || at + header.nlmsg_len > end) return found;
      if (header.nlmsg_type == NLMSG_DONE || header.nlmsg_type == NLMSG_ERROR) return found;
      size_t message_end = at + header.nlmsg_len;
      if (header.nlmsg_type == SOCK_DIAG_BY_FAMILY)
        for (size_t attr = at + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(unix_diag_msg));
             attr + sizeof(nlattr) <= message_end;) {
          nlattr attribute{};
          std::memcpy(&attribute, buf + attr, sizeof attribute);
          if (attribute.nla_len < sizeof attribute || attr + attribute.nla_len > message_end) break;
          if ((attribute.nla_type & NLA_TYPE_MASK) == UNIX_DIAG_VFS &&
              attribute.nla_len >= NLA_HDRLEN + sizeof(unix_diag_vfs)) {
            unix_diag_vfs vfs{};
            std::memcpy(&vfs, buf + attr + NLA_HDRLEN, sizeof vfs);
            found.push_back(vfs);
          }
          attr += NLA_ALIGN(attribute.nla_len);
        }
      at += NLMSG_ALIGN(header.nlmsg_len);
    }
  }
}

// Which network namespace a socket belongs to (Linux 5.14); 0 when it cannot be told.
uint64_t netns_cookie(int socket) {
  uint64_t cookie = 0;
  socklen_t size = sizeof cookie;
  if (::getsockopt(socket, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &size) != 0) return 0;
  return cookie;
}

bool same_file(const unix_diag_vfs& vfs, const struct stat& st) {
  // The kernel's dev_t: 12 bits of major above 20 of minor.
  return vfs.udiag_vfs_ino == static_cast<uint32_t>(st.st_ino) &&
         (vfs.udiag_vfs_dev >> 20) == major(st.st_dev) &&
         (vfs.udiag_vfs_dev & 0xfffffu) == minor(st.st_dev);
}

// What the loop and the threads answering share; the last of them to end closes the listener.
struct Shared {
  util::Fd listener;
  util::Fd diag;
  uint64_t netns = 0;   // the run's network namespace (SO_NETNS_COOKIE of `diag`)
  std::mutex diag_lock; // one dump at a time on the netlink socket
};

// Decide and make one connect; the errno to answer with (0: connected).
int connect_for(Shared& shared, const seccomp_notif& request) {
  auto still_waiting = [&] {
    uint64_t id = request.id;
    return ::ioctl(shared.listener.get(), SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
  };
  util::Fd pidfd = open_pidfd(static_cast<pid_t>(request.pid));
  // The notification still pending: the pidfd names the thread that made it, not a successor.
  if (!pidfd || !still_waiting()) return EACCES;
  util::Fd socket(pidfd_getfd(pidfd.get(), static_cast<int>(request.data.args[0])));
  if (!socket) return errno == EBADF ? EBADF : EACCES;

  auto length = static_cast<int64_t>(static_cast<int32_t>(request.data.args[2]));
  sockaddr_storage address{};
  if (length < 0 || length > static_cast<int64_t>(sizeof address)) return EINVAL;
  iovec local{&address, static_cast<size_t>(length)};
  // An address in the run's memory, never dereferenced here.
  iovec remote{std::bit_cast<void*>(static_cast<uintptr_t>(request.data.args[1])),
               static_cast<size_t>(length)};
  if (length > 0 &&
      ::process_vm_readv(static_cast<pid_t>(request.pid), &local, 1, &remote, 1, 0) != length)
    return EFAULT;
  if (!still_waiting()) return EACCES;

  int domain = 0;
  socklen_t size = sizeof domain;
  if (::getsockopt(socket.get(), SOL_SOCKET, SO_DOMAIN, &domain, &size) != 0) return errno;
  // Only a socket of the run's namespace: one it inherited from the host's (an unconnected one
  // on its standard streams) would reach the host's abstract sockets and loopback.
  if (netns_cookie(socket.get()) != shared.netns) return EACCES;
  auto* unix_address = reinterpret_cast<sockaddr_un*>(&address);
  constexpr auto path_at = static_cast<int64_t>(offsetof(sockaddr_un, sun_path));
  bool by_path = domain == AF_UNIX && length > path_at && address.ss_family == AF_UNIX &&
                 unix_address->sun_path[0] != '\0';
  if (!by_path) {
    int rc = ::connect(socket.get(), reinterpret_cast<sockaddr*>(&address),
                       static_cast<socklen_t>(length));
    return rc == 0 ? 0 : errno;
  }

  std::string path(unix_address->sun_path,
                   strnlen(unix_address->sun_path, static_cast<size_t>(length - path_at)));
  bool absolute = path.front() == '/';
  util::Fd base(::open(fmt::format("/proc/{}/{}", request.pid, absolute ? "root" : "cwd").c_str(),
                       O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!base) return EACCES;
  open_how how{};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_NO_MAGICLINKS | (absolute ? RESOLVE_IN_ROOT : 0);
  util::Fd file(
      static_cast<int>(::syscall(SYS_openat2, base.get(), path.c_str(), &how, sizeof how)));
  if (!file) return errno;
  struct stat st {};
  if (::fstat(file.get(), &st) != 0 || !S_ISSOCK(st.st_mode)) return ECONNREFUSED;
  bool own = false;
  {
    std::lock_guard<std::mutex> hold(shared.diag_lock);
    for (const auto& vfs : bound_sockets(shared.diag.get()))
      own = own || same_file(vfs, st);
  }
  if (!own) return ECONNREFUSED;
  sockaddr_un resolved{};
  resolved.sun_family = AF_UNIX;
  auto name = fmt::format("/proc/self/fd/{}", file.get());
  std::memcpy(resolved.sun_path, name.c_str(), name.size() + 1);
  int rc = ::connect(socket.get(), reinterpret_cast<sockaddr*>(&resolved), sizeof resolved);
  return rc == 0 ? 0 : errno;
}

void answer(const std::shared_ptr<Shared>& shared, seccomp_notif request) {
  seccomp_notif_resp response{};
  response.id = request.id;
  response.error = request.data.nr == SYS_connect ? -connect_for(*shared, request) : -ENOSYS;
  // The run's thread may be gone meanwhile (ENOENT): nothing is waiting then.
  (void)::ioctl(shared->listener.get(), SECCOMP_IOCTL_NOTIF_SEND, &response);
}

} // namespace

// The supervisor's own descriptors: the parent's end of the hand-over channel, and the eventfd
// that tells the loop to stop.
struct SupervisorLoop {
  util::Fd channel;
  util::Fd stop;
};

namespace {

// A child's hand-over: take its listener and netlink socket (nullptr, after answering the child
// with the error, when that fails: the child then fails its start, the run does not run).
std::shared_ptr<Shared> take_over(const HandOver& given, int channel) {
  auto shared = std::make_shared<Shared>();
  int error = 0;
  util::Fd pidfd(pidfd_open(given.pid, 0));
  if (!pidfd) error = errno;
  if (!error) shared->listener = util::Fd(pidfd_getfd(pidfd.get(), given.listener));
  if (!error && !shared->listener) error = errno;
  if (!error) shared->diag = util::Fd(pidfd_getfd(pidfd.get(), given.diag));
  if (!error && !shared->diag) error = errno;
  if (!error && (shared->netns = netns_cookie(shared->diag.get())) == 0) error = EINVAL;
  (void)!::send(channel, &error, sizeof error, MSG_NOSIGNAL);
  return error ? nullptr : shared;
}

// Receive one notification of `shared`'s run and answer it in a thread of its own; false when
// its listener is unusable.
bool receive(const std::shared_ptr<Shared>& shared) {
  seccomp_notif request{};
  if (::ioctl(shared->listener.get(), SECCOMP_IOCTL_NOTIF_RECV, &request) != 0)
    // ENOENT: the thread was gone before it was received.
    return errno == ENOENT || errno == EINTR;
  try {
    std::thread(answer, shared, request).detach();
  } catch (const std::system_error&) {
    // No thread to be had (RLIMIT_NPROC): answered here, holding up the others meanwhile.
    answer(shared, request);
  }
  return true;
}

// The loop: hand-overs on the channel (each child the sandbox is applied to), then each run's
// notifications, until told to stop. A run whose threads have all ended hangs its listener up.
void supervise(const SupervisorLoop& loop) {
  std::vector<std::shared_ptr<Shared>> runs;
  bool channel_open = true;
  while (channel_open || !runs.empty()) {
    std::vector<pollfd> fds = {{loop.stop.get(), POLLIN, 0}, {loop.channel.get(), POLLIN, 0}};
    if (!channel_open) fds[1].fd = -1; // poll skips it
    for (const auto& run : runs)
      fds.push_back({run->listener.get(), POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[0].revents != 0) return;
    // The runs polled first (fds[2 + i] is runs[i]), then a new one appended.
    for (size_t i = fds.size() - 2; i-- > 0;) {
      short events = fds[2 + i].revents;
      bool keep = (events & POLLIN) ? receive(runs[i]) : (events & (POLLHUP | POLLERR)) == 0;
      if (!keep) runs.erase(runs.begin() + static_cast<std::ptrdiff_t>(i));
    }
    if (fds[1].revents & POLLIN) {
      HandOver given{};
      if (::recv(loop.channel.get(), &given, sizeof given, 0) ==
          static_cast<ssize_t>(sizeof given)) {
        if (auto run = take_over(given, loop.channel.get())) runs.push_back(std::move(run));
      } else {
        channel_open = false; // every end of the children's closed
      }
    } else if (fds[1].revents & (POLLHUP | POLLERR)) {
      channel_open = false;
    }
  }
}

} // namespace

std::string connect_supervisor_missing() {
  // The tests' way to see the fallback (the covers alone) on a kernel that has everything.
  if (const char* off = std::getenv("BERTH_TEST_NO_CONNECT_SUPERVISOR"); off && *off)
    return "the supervisor (BERTH_TEST_NO_CONNECT_SUPERVISOR is set)";
  // Each probe fails with ENOSYS only where the kernel lacks the call; any other error means the
  // call exists.
  seccomp_notif_sizes sizes{};
  if (::syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0)
    return "seccomp user notification (Linux 5.0)";
  if (sizes.seccomp_notif != sizeof(seccomp_notif) ||
      sizes.seccomp_notif_resp != sizeof(seccomp_notif_resp))
    return "seccomp user notification of the size berth was built for";
  if (pidfd_getfd(-1, 0) < 0 && errno == ENOSYS) return "pidfd_getfd (Linux 5.6)";
  open_how how{};
  if (::syscall(SYS_openat2, -1, "", &how, sizeof how) < 0 && errno == ENOSYS)
    return "openat2 (Linux 5.6)";
  util::Fd diag(::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG));
  if (!diag) return fmt::format("a sock_diag netlink socket: {}", std::strerror(errno));
  if (netns_cookie(diag.get()) == 0) return "SO_NETNS_COOKIE (Linux 5.14)";
  // Answered by the unix_diag table (CONFIG_UNIX_DIAG): the first message says whether (the
  // host's sockets it lists are not kept).
  if (!ask_for_unix_sockets(diag.get()))
    return fmt::format("the unix sock_diag table: {}", std::strerror(errno));
  char buf[8192];
  ssize_t n = ::recv(diag.get(), buf, sizeof buf, 0);
  nlmsghdr header{};
  nlmsgerr error{};
  if (n >= static_cast<ssize_t>(sizeof header)) std::memcpy(&header, buf, sizeof header);
  if (header.nlmsg_type == NLMSG_ERROR && n >= static_cast<ssize_t>(NLMSG_HDRLEN + sizeof error))
    std::memcpy(&error, buf + NLMSG_HDRLEN, sizeof error);
  if (n < static_cast<ssize_t>(sizeof header) || error.error != 0)
    return "the unix sock_diag table (CONFIG_UNIX_DIAG)";
  return "";
}

Result<std::shared_ptr<ConnectSupervisor>> ConnectSupervisor::start() {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
    return fail(ErrorCode::sandbox_unavailable,
                fmt::format("the connect supervisor's channel: {}", std::strerror(errno)));
  auto supervisor = std::shared_ptr<ConnectSupervisor>(new ConnectSupervisor());
  auto loop = std::make_shared<SupervisorLoop>();
  loop->channel = util::Fd(pair[0]);
  supervisor->child_end_ = util::Fd(pair[1]);
  loop->stop = util::Fd(::eventfd(0, EFD_CLOEXEC));
  if (!loop->stop)
    return fail(ErrorCode::sandbox_unavailable,
                fmt::format("the connect supervisor's eventfd: {}", std::strerror(errno)));
  supervisor->loop_ = loop;
  // Detached, owning what it uses: ending the supervisor never waits on the kernel (a receive
  // that blocks after its notification vanished), it only tells the loop to stop.
  std::thread([loop] { supervise(*loop); }).detach();
  return supervisor;
}

ConnectSupervisor::~ConnectSupervisor() {
  uint64_t one = 1;
  (void)!::write(loop_->stop.get(), &one, sizeof one);
}

void ConnectSupervisor::close_child_end() {
  child_end_.reset();
}

int seccomp_load_with_listener(const SeccompProgram& program) {
  sock_fprog prog{static_cast<unsigned short>(program.instructions.size()),
                  const_cast<sock_filter*>(program.instructions.data())};
  // Not SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV: a signal interrupts a connect berth is making
  // (EINTR, or restarted under SA_RESTART, which finds the connect under way or done: EALREADY,
  // EISCONN) as it interrupts a connect of the kernel's own, and an alarm(2) timeout around a
  // connect to a full backlog works.
  long fd =
      ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
  return fd < 0 ? -errno : static_cast<int>(fd);
}

int open_unix_diag_in_child() {
  int fd = ::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  return fd < 0 ? -errno : fd;
}

int hand_over_to_supervisor(int channel, int listener, int diag) {
  HandOver given{static_cast<int32_t>(::getpid()), listener, diag};
  if (::send(channel, &given, sizeof given, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof given))
    return errno ? errno : EIO;
  // Never forever: a supervisor that does not answer within 10 s fails the start.
  timeval patience{10, 0};
  (void)::setsockopt(channel, SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
  int error = 0;
  ssize_t n;
  while ((n = ::recv(channel, &error, sizeof error, 0)) < 0 && errno == EINTR) {
  }
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return ETIMEDOUT;
  if (n != static_cast<ssize_t>(sizeof error)) return EPIPE;
  return error;
}

} // namespace berth::sandbox

// Mode selection for `berth run --sandbox`: assemble the layers the mode asks for, and refuse
// (fail closed) when one of them cannot be enforced here. best_effort is the only mode that runs
// with less than it asked for, and it says what is missing.
#include "core/sandbox.hpp"

#include "core/sandbox_internal.hpp"
#include "util/child_process.hpp"
#include "util/paths.hpp"

#include <algorithm>
#include <cerrno>
#include <fmt/format.h>
#include <iterator>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace berth {
namespace {

using namespace sandbox;

// What the child applies between fork and exec; built once, shared by every copy of the closure.
struct ChildState {
  UniqueFd ruleset;
  SeccompProgram seccomp;
  /// The namespaces to enter first (a private network, /dev/shm, IPC).
  std::optional<PrivateNamespaces> namespaces;
  uint64_t shm_access = 0; ///< the Landlock rights granted beneath the private /dev/shm
  /// The child's end of the connect supervisor's hand-over channel; -1 without one.
  int supervisor_channel = -1;
  /// Root under Landlock: the capabilities a container's root keeps, no more (kept_by_root).
  bool drop_capabilities = false;
};

// What root keeps in a Landlock run: Docker's default set. Not CAP_NET_ADMIN (netlink reaches
// other network namespaces by id: an interface made in the host's, a macvlan on its NIC), not
// CAP_SYS_ADMIN, CAP_DAC_READ_SEARCH (open_by_handle_at), CAP_SYS_PTRACE, CAP_SYS_MODULE, ...
constexpr int kKeptByRoot[] = {CAP_CHOWN,      CAP_DAC_OVERRIDE,    CAP_FSETID, CAP_FOWNER,
                               CAP_MKNOD,      CAP_NET_RAW,         CAP_SETGID, CAP_SETUID,
                               CAP_SETFCAP,    CAP_SETPCAP,         CAP_KILL,   CAP_AUDIT_WRITE,
                               CAP_SYS_CHROOT, CAP_NET_BIND_SERVICE};

bool kept_by_root(int cap) {
  return std::find(std::begin(kKeptByRoot), std::end(kKeptByRoot), cap) != std::end(kKeptByRoot);
}

// Whether exec would give root a capability beyond kKeptByRoot (its bounding set holds one).
bool has_unkept_capabilities() {
  for (int cap = 0; cap < 64; ++cap)
    if (!kept_by_root(cap) && ::prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1) return true;
  return false;
}

// Whether berth holds `cap` now.
bool effective(int cap) {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (::syscall(SYS_capget, &header, data) != 0) return false;
  return (data[cap / 32].effective >> (cap % 32) & 1u) != 0;
}

// In the child: drop every other capability from the bounding set (what exec gives root) and
// clear the ambient ones. Async-signal-safe; 0 or an errno value.
int drop_capabilities() {
  for (int cap = 0; cap < 64; ++cap) {
    if (kept_by_root(cap)) continue;
    // EINVAL: past the last capability this kernel has.
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) return errno;
  }
  if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
    return errno;
  return 0;
}

std::function<int()> child_function(const std::shared_ptr<const ChildState>& state) {
  return [state]() -> int {
    // A new session: no controlling terminal, so no TIOCSTI/TIOCLINUX into the user's shell even
    // without seccomp. Already done when the caller spawned with ProcessGroup::session; a
    // process-group leader (ProcessGroup::own) cannot do it, and then the spawn fails (EPERM).
    if (::getsid(0) != ::getpid() && ::setsid() < 0) return errno;
    // Before Landlock: the user namespace's id maps are files to write, and Landlock forbids
    // mounting.
    if (state->namespaces)
      if (int error = enter_namespaces(*state->namespaces); error != 0) return error;
    if (state->drop_capabilities)
      if (int error = drop_capabilities(); error != 0) return error;
    // Inside the run's network namespace: the supervisor lists that namespace's unix sockets.
    int diag = -1;
    if (state->supervisor_channel >= 0)
      if (diag = open_unix_diag_in_child(); diag < 0) return -diag;
    // Required by landlock_restrict_self and by an unprivileged seccomp filter; also stops a
    // setuid program inside from regaining what the sandbox removed.
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
    if (state->ruleset) {
      // The private /dev/shm exists only now, in this mount namespace: a rule names an inode,
      // and the parent could only have named the host's directory beneath it.
      if (state->namespaces && !state->namespaces->shm.empty())
        if (int error = landlock_allow_beneath_in_child(
                state->ruleset.get(), state->namespaces->shm.c_str(), state->shm_access);
            error != 0)
          return error;
      if (int error = landlock_restrict_self(state->ruleset.get()); error != 0) return error;
    }
    if (state->supervisor_channel >= 0) {
      int listener = seccomp_load_with_listener(state->seccomp);
      if (listener < 0) return -listener;
      int error = hand_over_to_supervisor(state->supervisor_channel, listener, diag);
      ::close(listener);
      ::close(diag);
      return error;
    }
    if (!state->seccomp.instructions.empty())
      if (int error = seccomp_load_program(state->seccomp); error != 0) return error;
    return 0;
  };
}

// The writable directories, resolved: Landlock rules and bind mounts apply to what a path names
// now, so a symlinked path is resolved once, here.
Result<std::vector<std::string>> writable_dirs(const SandboxRequest& request) {
  if (request.workspace.empty())
    return fail(ErrorCode::sandbox_unavailable, "the sandbox needs the workspace directory");
  std::vector<std::string> dirs;
  for (const auto* dir :
       {&request.workspace, &request.admin_dir, &request.object_quarantine, &request.tmpdir}) {
    if (dir->empty()) continue;
    auto real = util::real_path(*dir);
    if (!real || !util::is_directory(*real))
      return fail(ErrorCode::sandbox_unavailable,
                  fmt::format("the sandbox's writable directory {} does not exist", *dir));
    dirs.push_back(*real);
  }
  for (const auto& path : request.writable) {
    auto real = util::real_path(path);
    if (!real)
      return fail(ErrorCode::sandbox_unavailable,
                  fmt::format("the sandbox's writable path {} does not exist", path));
    dirs.push_back(*real);
  }
  // A hidden path beneath a writable one would be readable (Landlock grants the writable tree
  // whole); a writable one beneath a hidden one would be a hole in it.
  for (const auto& dir : dirs)
    for (const auto& hidden : request.hidden)
      if (util::is_within(hidden, dir) || util::is_within(dir, hidden))
        return fail(
            ErrorCode::sandbox_path_refused,
            fmt::format("the writable {} and the hidden {} overlap", dir, hidden),
            fmt::format("make {} visible with --allow-read, or allow a narrower path", hidden));
  return dirs;
}

bool seccomp_supported() {
  // EINVAL when the kernel was built without CONFIG_SECCOMP.
  return ::prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
}

const char* const kUserNamespacesDisabled =
    "unprivileged user namespaces may be disabled: sysctl kernel.unprivileged_userns_clone, "
    "user.max_user_namespaces, an AppArmor or container policy";

// The layer both mechanisms name when berth makes the run's connects (sandbox_notify.cpp).
constexpr const char* kSupervisedLayer = "seccomp: every connect made by berth, a unix socket by "
                                         "path only where this run bound it; datagram unix "
                                         "sockets refused";

// What a --net=off run is told where the covers alone guard the host's unix sockets.
std::string unsupervised_warning(const std::string& missing) {
  return fmt::format("a unix socket the host binds after this run started stays reachable by its "
                     "path: this kernel lacks {}, with which berth makes the run's connects",
                     missing);
}

// The last line of a tool's error output: the one that says why.
std::string chomp_message(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
    text.pop_back();
  auto nl = text.rfind('\n');
  return nl == std::string::npos ? text : text.substr(nl + 1);
}

std::string join_list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items)
    out += (out.empty() ? "" : "; ") + item;
  return out;
}

Result<PreparedSandbox> prepare_landlock(const SandboxRequest& request,
                                         const std::vector<std::string>& dirs) {
  PreparedSandbox prepared;
  auto state = std::make_shared<ChildState>();
  const bool net_off = request.network == Network::off;

  // The run's own namespaces. --net=off is "nothing outside this run": a network namespace of
  // its own, whose loopback works (a test server and its client) while the host's loopback, its
  // abstract unix sockets and every other address are out of reach. Without one, Landlock and
  // seccomp can only refuse all of TCP and UDP, loopback included: best-effort says so. And,
  // whatever the network, a mount namespace with a private /dev/shm (POSIX shared memory and
  // semaphores: Python's multiprocessing) and an IPC namespace (SysV shared memory): where none
  // can be had the run goes on without them — the host's /dev/shm stays read-only, which
  // confines more, not less — and says so.
  const std::string shm = private_shm_target(dirs);
  std::vector<std::string> hidden = request.hidden;
  PrivateNamespaces namespaces = prepare_namespaces(net_off, shm);
  bool own_unix = false;
  if (net_off && namespaces.mount_namespace) {
    // The host's unix sockets covered in the run's mount namespace; the run's own work.
    if (auto sockets = host_unix_sockets({})) {
      namespaces.covers = std::move(*sockets);
      namespaces.cover_with = util::join(request.stub_dir, "file");
      own_unix = !request.stub_dir.empty();
    }
  }
  // With a network of its own, each connect is made by berth, which allows a unix socket by
  // path only where the run's namespace bound it: the host's sockets bound after the start, or
  // by another namespace, are out of reach too (the covers alone miss those).
  std::string unsupervised;
  if (net_off && namespaces.network) unsupervised = connect_supervisor_missing();
  const bool supervised = net_off && namespaces.network && unsupervised.empty();
  own_unix = own_unix || supervised;
  if (own_unix && !supervised) prepared.warnings.push_back(unsupervised_warning(unsupervised));
  const char* own_user = namespaces.user_namespace ? " (own user namespace)" : "";
  const bool private_network = namespaces.network;
  if (private_network)
    prepared.layers.push_back(fmt::format("network namespace{}: private loopback; tcp, udp and "
                                          "abstract unix sockets reach nothing outside",
                                          own_user));
  else if (net_off)
    prepared.missing.push_back(fmt::format("no private network namespace ({}; {}): tcp and udp "
                                           "are refused, loopback included",
                                           namespaces.network_missing, kUserNamespacesDisabled));
  if (!namespaces.shm.empty())
    prepared.layers.push_back(
        fmt::format("mount namespace{}: a private /dev/shm (tmpfs)", own_user));
  if (namespaces.ipc_namespace)
    prepared.layers.push_back(fmt::format(
        "ipc namespace{}: SysV IPC and POSIX message queues are the run's own", own_user));
  if (!namespaces.covers.empty())
    prepared.layers.push_back(
        fmt::format("mount namespace: the host's {} unix sockets covered; the run's own work",
                    namespaces.covers.size()));
  if (!shm.empty() && namespaces.shm.empty()) {
    // The host's /dev/shm then: read-only as before, and its segments (other programs' shared
    // memory) unreadable, as they are invisible in a private one.
    hidden.push_back(shm);
    prepared.warnings.push_back(fmt::format(
        "/dev/shm is the host's in this run, read-only, its files unreadable: "
        "shm_open and sem_open fail (Python's multiprocessing.Lock and Pool); no "
        "mount namespace for a private one ({}{})",
        namespaces.shm_missing, !net_off ? "; unprivileged user namespaces may be disabled" : ""));
  }
  if (enters_namespaces(namespaces)) state->namespaces = std::move(namespaces);

  auto ruleset = build_landlock_ruleset(dirs, hidden, net_off && !private_network, net_off);
  bool landlock_tcp = false;
  if (!ruleset) {
    prepared.missing.push_back(ruleset.error().message);
  } else {
    prepared.layers.push_back(fmt::format("landlock abi {}: filesystem", ruleset->abi));
    if (!request.hidden.empty())
      prepared.layers.push_back(
          fmt::format("landlock: {} hidden paths unreadable", request.hidden.size()));
    if (hidden.size() > request.hidden.size())
      prepared.layers.push_back("landlock: the host's /dev/shm unreadable");
    if (!ruleset->truncate)
      prepared.missing.push_back(
          fmt::format("landlock abi 3 (kernel has {}): truncating read-only files", ruleset->abi));
    if (ruleset->tcp) prepared.layers.push_back("landlock: tcp");
    if (ruleset->abstract_unix) prepared.layers.push_back("landlock: abstract unix sockets");
    if (ruleset->signals) prepared.layers.push_back("landlock: signals");
    landlock_tcp = ruleset->tcp;
    prepared.keep_fds.push_back(ruleset->fd.get());
    state->ruleset = std::move(ruleset->fd);
    state->shm_access = ruleset->handled_fs;
  }

  // seccomp covers what Landlock cannot: unix sockets by path (a namespace does not cut the
  // filesystem), families no namespace confines (vsock), and without a private namespace UDP,
  // raw sockets and TCP too where Landlock is too old for it.
  SeccompPolicy policy;
  // Root could otherwise join the host's namespaces again (setns on /proc/1/ns/net, .../mnt).
  policy.deny_setns = state->namespaces.has_value();
  if (net_off) {
    policy.deny_unix = !own_unix;
    policy.supervise_connect = supervised;
    policy.deny_other_families = true;
    policy.allow_netlink = private_network;
    policy.deny_inet_non_tcp = !private_network;
    policy.deny_tcp = !private_network && !landlock_tcp;
  }
  Result<SeccompProgram> program =
      seccomp_supported() ? build_seccomp_filter(policy)
                          : fail(ErrorCode::sandbox_unavailable,
                                 "seccomp is not available in this kernel (CONFIG_SECCOMP_FILTER)");
  if (!program) {
    prepared.missing.push_back(program.error().message);
    if (net_off && !private_network && !landlock_tcp) prepared.missing.push_back("network: tcp");
    if (net_off && !own_unix) prepared.missing.push_back("network: unix sockets by path");
    if (net_off && !private_network) prepared.missing.push_back("network: udp");
  } else {
    state->seccomp = std::move(*program);
    if (supervised) {
      prepared.supervisor = BERTH_TRY(ConnectSupervisor::start());
      state->supervisor_channel = prepared.supervisor->child_end();
      prepared.layers.push_back(kSupervisedLayer);
    }
    if (net_off)
      prepared.layers.push_back(
          own_unix          ? "seccomp: families other than inet, unix and netlink"
          : private_network ? "seccomp: unix sockets, and families other than inet and netlink"
          : policy.deny_tcp ? "seccomp: tcp, udp, raw, netlink and unix sockets"
                            : "seccomp: udp, raw, netlink and unix sockets");
    if (net_off) prepared.layers.push_back("seccomp: io_uring");
    prepared.layers.push_back("seccomp: terminal injection (TIOCSTI, TIOCLINUX)");
  }
  prepared.layers.push_back("new session");
  prepared.layers.push_back("no new privileges");
  if (::geteuid() == 0 && has_unkept_capabilities()) {
    // Dropping takes CAP_SETPCAP; a root without it (a container's) cannot, and says what stays.
    if (::prctl(PR_CAPBSET_READ, CAP_SETPCAP, 0, 0, 0) == 1 && effective(CAP_SETPCAP)) {
      state->drop_capabilities = true;
      prepared.layers.push_back("capabilities: root keeps a container's default set (no "
                                "CAP_NET_ADMIN, CAP_SYS_ADMIN, CAP_DAC_READ_SEARCH, ...)");
    } else {
      prepared.missing.push_back("capabilities: root's bounding set holds capabilities beyond a "
                                 "container's (CAP_NET_ADMIN, CAP_SYS_ADMIN, ...) and berth "
                                 "lacks CAP_SETPCAP to drop them");
    }
  }

  if (!prepared.missing.empty() && request.mode != SandboxMode::best_effort)
    // Without a network namespace of its own the cause is the kernel's refusal of user
    // namespaces, which bwrap (not setuid) needs as much: it is no way out then.
    return fail(
        ErrorCode::sandbox_unavailable,
        "the sandbox cannot be enforced here: " + join_list(prepared.missing),
        net_off && !private_network
            ? "the kernel (or a policy) refuses the namespaces a private network needs, and "
              "--sandbox=bwrap needs them too: use --sandbox=best-effort to run with what "
              "is available (`berth run` then lists what is missing), or allow "
              "unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, "
              "user.max_user_namespaces)"
            : "use --sandbox=bwrap, or --sandbox=best-effort to run with what is "
              "available (`berth run` then lists what is missing)");
  prepared.child_state = state;
  prepared.apply_in_child = child_function(state);
  return prepared;
}

Result<PreparedSandbox> prepare_bwrap(const SandboxRequest& request,
                                      const std::vector<std::string>& dirs) {
  std::string bwrap = find_bwrap();
  if (bwrap.empty())
    return fail(ErrorCode::sandbox_unavailable, "bwrap (bubblewrap) is not installed",
                "install bubblewrap (apt install bubblewrap) or use --sandbox=landlock");
  if (!seccomp_supported())
    return fail(ErrorCode::sandbox_unavailable,
                "seccomp is not available in this kernel (CONFIG_SECCOMP_FILTER)",
                "use --sandbox=best-effort");
  // bwrap's network namespace already cuts TCP, UDP and abstract sockets (and bwrap needs a
  // netlink socket to bring up its loopback); what crosses it is a unix socket by path.
  // The run's connects made by berth (as under Landlock), which reads the run's unix sockets
  // through a netlink socket inside its network namespace: berth's child makes that namespace
  // and bwrap runs in it, instead of making its own (--unshare-net).
  const bool net_off = request.network == Network::off;
  std::string unsupervised = net_off ? connect_supervisor_missing() : "";
  std::optional<PrivateNamespaces> own_network;
  if (net_off && unsupervised.empty()) {
    PrivateNamespaces plan = prepare_namespaces(true, "");
    if (plan.network) {
      plan.mount_namespace = plan.ipc_namespace = false; // bwrap makes its own
      own_network = std::move(plan);
    } else {
      unsupervised = "a network namespace berth can make: " + plan.network_missing;
    }
  }
  const bool supervised = own_network.has_value();
  // Without the supervisor the host's unix sockets are covered in bwrap's mount namespace (those
  // inside a hidden path are under its stub already), so the run's own may work; where the table
  // of them cannot be read, every unix socket stays refused. With it the covers would add nothing
  // (no connect reaches a socket the run did not bind, datagram sockets are refused) but a way
  // to fail: bwrap cannot cover a socket gone since the listing (below), and does not start.
  std::optional<std::vector<std::string>> covers;
  if (net_off && !supervised && !request.stub_dir.empty())
    covers = host_unix_sockets(request.hidden);
  SeccompPolicy policy;
  policy.deny_unix = net_off && !covers && !supervised;
  policy.supervise_connect = supervised;
  // Families no network namespace confines (vsock reaches the hypervisor), as under Landlock;
  // netlink stays (bwrap brings the private loopback up with it; it reaches only that namespace).
  policy.deny_other_families = net_off;
  policy.allow_netlink = true;
  auto state = std::make_shared<ChildState>();
  state->seccomp = BERTH_TRY(build_seccomp_filter(policy));
  state->namespaces = own_network;

  PreparedSandbox prepared;
  // Present is not working: user namespaces may be disabled (sysctl, AppArmor, a container).
  // Try the exact prefix, under the same child setup (but for the hand-over to the supervisor:
  // `true` connects nowhere), on `true`.
  // A socket of the host's can go between the listing and bwrap's mounts (its server stopped and
  // removed its folder): bwrap cannot bind over a path that is gone (it would make one, in a
  // read-only tree) and does not start. The sockets are then listed again and, when the list
  // changed, the probe tried again: a few times, as sockets come and go on a busy machine.
  tl::expected<util::ProcessResult, std::string> result;
  for (int attempt = 1;; ++attempt) {
    prepared.argv_prefix =
        bwrap_argv(bwrap, dirs, request.hidden, request.stub_dir, net_off && !supervised,
                   covers ? *covers : std::vector<std::string>{});
    util::SpawnOptions probe;
    probe.argv = prepared.argv_prefix;
    probe.argv.push_back("true");
    probe.close_other_fds = true;
    probe.group = util::ProcessGroup::session;
    probe.child_setup = child_function(state);
    result = util::run(probe);
    if ((result && result->ok()) || !covers || attempt == 5) break;
    auto listed_again = host_unix_sockets(request.hidden);
    if (!listed_again || *listed_again == *covers) break;
    covers = std::move(listed_again);
  }
  if (!result || !result->ok())
    return fail(ErrorCode::sandbox_unavailable,
                fmt::format("bwrap cannot create its sandbox here: {}",
                            result ? chomp_message(result->err) : result.error()),
                net_off ? "enable unprivileged user namespaces (sysctl "
                          "kernel.unprivileged_userns_clone=1, user.max_user_namespaces); "
                          "--sandbox=landlock needs them too for --net=off: use "
                          "--sandbox=best-effort to run with what is available (`berth run` then "
                          "lists what is missing)"
                        : "enable unprivileged user namespaces (sysctl "
                          "kernel.unprivileged_userns_clone=1, user.max_user_namespaces) or use "
                          "--sandbox=landlock");
  if (supervised) {
    prepared.supervisor = BERTH_TRY(ConnectSupervisor::start());
    auto supervised_state = std::make_shared<ChildState>();
    supervised_state->seccomp = state->seccomp;
    supervised_state->namespaces = own_network;
    supervised_state->supervisor_channel = prepared.supervisor->child_end();
    state = std::move(supervised_state);
  } else if (net_off && covers) {
    prepared.warnings.push_back(unsupervised_warning(unsupervised));
  }
  prepared.child_state = state;
  prepared.apply_in_child = child_function(state);

  prepared.layers = {"bwrap: filesystem (read-only binds)", "bwrap: pid and ipc namespaces",
                     "bwrap: no capabilities, no nested user namespaces"};
  if (!request.hidden.empty())
    prepared.layers.push_back(fmt::format("bwrap: {} hidden paths covered", request.hidden.size()));
  if (net_off) {
    prepared.layers.push_back(supervised ? "network namespace (berth's): tcp, udp, abstract unix "
                                           "sockets reach nothing outside"
                                         : "bwrap: network namespace (tcp, udp, abstract unix "
                                           "sockets)");
    if (covers)
      prepared.layers.push_back(fmt::format(
          "bwrap: the host's {} unix sockets covered; the run's own work", covers->size()));
    if (supervised)
      prepared.layers.push_back(kSupervisedLayer);
    else if (!covers)
      prepared.layers.push_back("seccomp: unix sockets");
  }
  prepared.layers.push_back("seccomp: terminal injection (TIOCSTI, TIOCLINUX)");
  prepared.layers.push_back("new session");
  prepared.layers.push_back("no new privileges");
  return prepared;
}

// What an inherited standard stream would let a --net=off run reach outside: a socket of the
// host's network namespace that is not a connected (or listening) stream — a datagram socket
// sends to any address (sendto), an unconnected TCP socket connects with its first send
// (MSG_FASTOPEN). "" when nothing (a terminal, a pipe, a file, a connected stream).
std::string outward_stream(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) return "";
  int type = 0, listening = 0;
  socklen_t size = sizeof type;
  (void)::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &size);
  size = sizeof listening;
  (void)::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size);
  sockaddr_storage peer{};
  socklen_t peer_size = sizeof peer;
  bool connected = ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_size) == 0;
  if ((type == SOCK_STREAM || type == SOCK_SEQPACKET) && (connected || listening)) return "";
  static const char* const names[] = {"standard input", "standard output", "standard error"};
  return fmt::format("{} is {} socket of the host's network, through which the command could "
                     "send outside",
                     fd >= 0 && fd <= 2 ? names[fd] : "a stream",
                     type == SOCK_DGRAM ? "a datagram" : "an unconnected");
}

} // namespace

Result<PreparedSandbox> prepare_sandbox(const SandboxRequest& request) {
  if (request.mode == SandboxMode::off) return PreparedSandbox{};
  auto dirs = BERTH_TRY(writable_dirs(request));
  std::vector<std::string> outward;
  if (request.network == Network::off)
    for (int fd : request.inherited_streams)
      if (auto why = outward_stream(fd); !why.empty()) outward.push_back(why);
  if (!outward.empty() && request.mode != SandboxMode::best_effort)
    return fail(ErrorCode::sandbox_unavailable,
                "the sandbox cannot be enforced with --net=off: " + join_list(outward),
                "give the command a terminal, a pipe, a file or a connected stream instead "
                "(`< /dev/null`), or use --net=on");
  auto prepared = request.mode == SandboxMode::bwrap ? prepare_bwrap(request, dirs)
                                                     : prepare_landlock(request, dirs);
  if (prepared)
    for (auto& why : outward)
      prepared->missing.push_back("network: " + why);
  return prepared;
}

void release_sandbox(PreparedSandbox& sandbox) {
  // The supervisor stays (it makes the run's connects until the run ends); its copy of the
  // child's end goes, so that a child that died before the hand-over is seen to be gone.
  if (sandbox.supervisor) sandbox.supervisor->close_child_end();
  sandbox.apply_in_child = nullptr;
  sandbox.child_state.reset();
  sandbox.keep_fds.clear();
}

} // namespace berth

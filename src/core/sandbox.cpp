// Mode selection for `berth run --sandbox`: assemble the layers the mode asks for, and refuse
// (fail closed) when one of them cannot be enforced here. best_effort is the only mode that runs
// with less than it asked for, and it says what is missing.
#include "core/sandbox.hpp"

#include "core/sandbox_internal.hpp"
#include "util/child_process.hpp"
#include "util/paths.hpp"

#include <cerrno>
#include <fmt/format.h>
#include <sys/prctl.h>
#include <unistd.h>

namespace berth {
namespace {

using namespace sandbox;

// What the child applies between fork and exec; built once, shared by every copy of the closure.
struct ChildState {
  UniqueFd ruleset;
  SeccompProgram seccomp;
};

std::function<int()> child_function(const std::shared_ptr<const ChildState>& state) {
  return [state]() -> int {
    // A new session: no controlling terminal, so no TIOCSTI/TIOCLINUX into the user's shell even
    // without seccomp. Already done when the caller spawned with ProcessGroup::session; a
    // process-group leader (ProcessGroup::own) cannot do it, and then the spawn fails (EPERM).
    if (::getsid(0) != ::getpid() && ::setsid() < 0) return errno;
    // Required by landlock_restrict_self and by an unprivileged seccomp filter; also stops a
    // setuid program inside from regaining what the sandbox removed.
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
    if (state->ruleset)
      if (int error = landlock_restrict_self(state->ruleset.get()); error != 0) return error;
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
  return dirs;
}

bool seccomp_supported() {
  // EINVAL when the kernel was built without CONFIG_SECCOMP.
  return ::prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
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

  auto ruleset = build_landlock_ruleset(dirs, request.network);
  bool landlock_tcp = false;
  if (!ruleset) {
    prepared.missing.push_back(ruleset.error().message);
  } else {
    prepared.layers.push_back(fmt::format("landlock abi {}: filesystem", ruleset->abi));
    if (!ruleset->truncate)
      prepared.missing.push_back(
          fmt::format("landlock abi 3 (kernel has {}): truncating read-only files", ruleset->abi));
    if (ruleset->tcp) prepared.layers.push_back("landlock: tcp");
    if (ruleset->abstract_unix) prepared.layers.push_back("landlock: abstract unix sockets");
    if (ruleset->signals) prepared.layers.push_back("landlock: signals");
    landlock_tcp = ruleset->tcp;
    prepared.keep_fds.push_back(ruleset->fd.get());
    state->ruleset = std::move(ruleset->fd);
  }

  // seccomp covers what Landlock cannot, and TCP too where Landlock is too old for it: with the
  // two together, --net=off holds on any kernel that has seccomp.
  SeccompPolicy policy;
  if (net_off) {
    policy.deny_unix = true;
    policy.deny_inet_non_tcp = true;
    policy.deny_other_families = true;
    policy.deny_tcp = !landlock_tcp;
  }
  Result<SeccompProgram> program =
      seccomp_supported() ? build_seccomp_filter(policy)
                          : fail(ErrorCode::sandbox_unavailable,
                                 "seccomp is not available in this kernel (CONFIG_SECCOMP_FILTER)");
  if (!program) {
    prepared.missing.push_back(program.error().message);
    if (net_off && !landlock_tcp) prepared.missing.push_back("network: tcp");
    if (net_off) prepared.missing.push_back("network: udp, unix sockets");
  } else {
    state->seccomp = std::move(*program);
    if (net_off)
      prepared.layers.push_back(policy.deny_tcp ? "seccomp: tcp, udp, raw, netlink and unix sockets"
                                                : "seccomp: udp, raw, netlink and unix sockets");
    prepared.layers.push_back("seccomp: terminal injection (TIOCSTI, TIOCLINUX)");
  }
  prepared.layers.push_back("new session");
  prepared.layers.push_back("no new privileges");

  if (!prepared.missing.empty() && request.mode != SandboxMode::best_effort)
    return fail(ErrorCode::sandbox_unavailable,
                "the sandbox cannot be enforced here: " + join_list(prepared.missing),
                "use --sandbox=bwrap, or --sandbox=best-effort to run with what is available "
                "(`berth run` then lists what is missing)");
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
  SeccompPolicy policy;
  policy.deny_unix = request.network == Network::off;
  auto state = std::make_shared<ChildState>();
  state->seccomp = BERTH_TRY(build_seccomp_filter(policy));

  PreparedSandbox prepared;
  prepared.argv_prefix = bwrap_argv(bwrap, dirs, request.network);
  prepared.child_state = state;
  prepared.apply_in_child = child_function(state);

  // Present is not working: user namespaces may be disabled (sysctl, AppArmor, a container).
  // Try the exact prefix, under the same child setup, on `true`.
  util::SpawnOptions probe;
  probe.argv = prepared.argv_prefix;
  probe.argv.push_back("true");
  probe.close_other_fds = true;
  probe.group = util::ProcessGroup::session;
  probe.child_setup = prepared.apply_in_child;
  auto result = util::run(probe);
  if (!result || !result->ok())
    return fail(ErrorCode::sandbox_unavailable,
                fmt::format("bwrap cannot create its sandbox here: {}",
                            result ? chomp_message(result->err) : result.error()),
                "enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, "
                "user.max_user_namespaces) or use --sandbox=landlock");

  prepared.layers = {"bwrap: filesystem (read-only binds)", "bwrap: pid and ipc namespaces",
                     "bwrap: no capabilities, no nested user namespaces"};
  if (request.network == Network::off) {
    prepared.layers.push_back("bwrap: network namespace (tcp, udp, abstract unix sockets)");
    prepared.layers.push_back("seccomp: unix sockets");
  }
  prepared.layers.push_back("seccomp: terminal injection (TIOCSTI, TIOCLINUX)");
  prepared.layers.push_back("new session");
  prepared.layers.push_back("no new privileges");
  return prepared;
}

} // namespace

Result<PreparedSandbox> prepare_sandbox(const SandboxRequest& request) {
  if (request.mode == SandboxMode::off) return PreparedSandbox{};
  auto dirs = BERTH_TRY(writable_dirs(request));
  if (request.mode == SandboxMode::bwrap) return prepare_bwrap(request, dirs);
  return prepare_landlock(request, dirs);
}

void release_sandbox(PreparedSandbox& sandbox) {
  sandbox.apply_in_child = nullptr;
  sandbox.child_state.reset();
  sandbox.keep_fds.clear();
}

} // namespace berth

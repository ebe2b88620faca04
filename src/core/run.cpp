// `berth run` and `berth shell`: a command in a workspace, with its stdio passed through, its
// exit status returned, and the workspace marked busy (a lease) while it runs.
//
// Process model: the command gets its own process group, so a timeout or a forwarded Ctrl-C
// reaches everything it started; in the sandbox it gets a new session instead (no controlling
// terminal, so it cannot push keystrokes into the user's shell with TIOCSTI). Forwarding signals
// and handing the group the terminal are the front end's (RunOptions::on_start): a library must
// not change a host program's signal handlers or take its terminal.
#include "berth/berth.hpp"
#include "core/admin_files.hpp"
#include "core/capture.hpp"
#include "core/lease.hpp"
#include "core/name.hpp"
#include "core/ports.hpp"
#include "core/registry.hpp"
#include "core/review.hpp"
#include "core/sandbox.hpp"
#include "core/workspace_git.hpp"
#include "util/child_process.hpp"
#include "util/paths.hpp"
#include "util/process_info.hpp"

#include <chrono>
#include <cstdlib>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

namespace berth {

std::map<std::string, std::string> workspace_environment(const Project& project,
                                                         const Workspace& w) {
  std::map<std::string, std::string> env{{"BERTH_WORKSPACE", w.path},
                                         {"BERTH_NAME", w.name},
                                         {"BERTH_BASE", w.base},
                                         {"BERTH_PROJECT", project.main_worktree()}};
  if (w.port > 0) {
    env["BERTH_PORT"] = std::to_string(w.port);
    for (int i = 0; i < kPortBlock; ++i)
      env[fmt::format("BERTH_PORT_{}", i)] = std::to_string(w.port + i);
  }
  return env;
}

namespace {

std::string run_directory(const Project& project, const Workspace& w) {
  // From a subdirectory of the checkout you stand in, run in the same subdirectory.
  const std::string& here = project.current_worktree();
  if (here.empty() || !util::is_within(project.cwd(), here) || project.cwd() == here) return w.path;
  std::string candidate = util::join(w.path, project.cwd().substr(here.size()));
  return util::is_directory(candidate) ? candidate : w.path;
}

Result<std::optional<SandboxMode>> sandbox_mode(const Project& project, const RunOptions& options) {
  std::string mode =
      options.sandbox.value_or(project.config().get_bool("run.sandbox") ? "landlock" : "");
  if (mode.empty() || mode == "off") {
    if (!options.network)
      return fail(ErrorCode::usage, "--net=off needs the sandbox", "add --sandbox");
    return std::optional<SandboxMode>();
  }
  if (mode == "landlock") return std::optional<SandboxMode>(SandboxMode::landlock);
  if (mode == "bwrap") return std::optional<SandboxMode>(SandboxMode::bwrap);
  if (mode == "best-effort") return std::optional<SandboxMode>(SandboxMode::best_effort);
  return fail(ErrorCode::usage, fmt::format("unknown sandbox '{}'", mode),
              "use --sandbox=landlock, bwrap or best-effort");
}

} // namespace

Result<RunResult> run_in_workspace(const Project& project, const RunOptions& options) {
  auto mode = BERTH_TRY(sandbox_mode(project, options));
  if (options.timeout && !(*options.timeout > 0))
    return fail(ErrorCode::usage, "--timeout must be a positive number of seconds");
  // Every usage error before anything happens: a refused run changes nothing.
  std::map<std::string, std::string> extra_env;
  for (const auto& kv : options.env) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      return fail(ErrorCode::usage, fmt::format("--env '{}': expected KEY=VALUE", kv));
    extra_env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  RunResult result;
  if (options.ephemeral) {
    NewOptions create;
    create.name = options.name;
    create.owner = "ephemeral";
    BERTH_TRY(create_workspace(project, create));
  }

  // Busy while it runs (released however this returns): commit, sync, discard and accept refuse
  // meanwhile, unless the command itself calls them.
  Lease lease = BERTH_TRY(Lease::take(project, options.name, "run"));
  Workspace w = lease.workspace();
  result.name = w.name;
  result.path = w.path;
  result.cwd = run_directory(project, w);

  util::SpawnOptions spawn;
  spawn.argv = options.command;
  if (spawn.argv.empty()) {
    const char* shell = std::getenv("SHELL");
    spawn.argv = {shell && *shell ? shell : "/bin/sh"};
  }
  spawn.cwd = result.cwd;
  spawn.in = spawn.out = spawn.err = util::Stream::inherit;
  spawn.group = util::ProcessGroup::own;
  for (const auto& [key, value] : workspace_environment(project, w))
    spawn.env[key] = value;
  for (const auto& [key, value] : extra_env)
    spawn.env[key] = value;

  // The sandbox: a confined session (detached HEAD, object quarantine, private TMPDIR) and the
  // kernel-enforced policy around the child.
  std::optional<ConfinedSession> session;
  PreparedSandbox sandbox;
  if (mode) {
    auto begun = begin_confined_session(project, w);
    if (!begun) {
      return tl::unexpected(begun.error());
    }
    session = *begun;
    SandboxRequest request{*mode,
                           options.network ? Network::on : Network::off,
                           w.path,
                           w.git_dir,
                           session->quarantine,
                           session->tmpdir};
    auto prepared = prepare_sandbox(request);
    if (!prepared) {
      (void)end_confined_session(project, w, *session);
      return tl::unexpected(prepared.error());
    }
    sandbox = std::move(*prepared);
    for (const auto& [key, value] : session->env)
      spawn.env[key] = value;
    spawn.argv.insert(spawn.argv.begin(), sandbox.argv_prefix.begin(), sandbox.argv_prefix.end());
    spawn.child_setup = sandbox.apply_in_child;
    spawn.group = util::ProcessGroup::session;
    spawn.close_other_fds = true;
    result.sandbox_layers = sandbox.layers;
    for (const auto& m : sandbox.missing)
      result.warnings.push_back("sandbox: not enforced: " + m);
  }

  auto child = util::spawn(spawn);
  if (mode) release_sandbox(sandbox);
  if (child && session) record_session_command(project, w, *session, child->pid());
  if (!child) {
    // Like a shell: 127 when the command cannot be started.
    result.exit_status = 127;
    result.warnings.push_back(child.error());
  } else {
    // The group outlives its leader: once the leader is reaped, reach it by its id.
    pid_t group = child->pid();
    // The front end's signals and terminal (RunOptions::on_start), until the command ended.
    if (options.on_start) options.on_start(group, mode.has_value());
    struct Ended {
      const std::function<void()>& on_end;
      ~Ended() {
        if (on_end) on_end();
      }
    } ended{options.on_end};
    std::optional<std::chrono::milliseconds> limit;
    if (options.timeout)
      limit = std::chrono::milliseconds(static_cast<int64_t>(*options.timeout * 1000));
    bool timed_out = false;
    auto waited = child->wait(limit, &timed_out);
    if (waited && timed_out) {
      // The whole group: TERM, a grace period, then KILL.
      result.timed_out = true;
      ::kill(-group, SIGTERM);
      bool still = false;
      waited = child->wait(std::chrono::milliseconds(2000), &still);
      if (waited && still) {
        ::kill(-group, SIGKILL);
        waited = child->wait();
      }
      ::kill(-group, SIGKILL); // stragglers that ignored TERM in the group
    }
    if (!waited) result.warnings.push_back(waited.error());
    result.exit_status = result.timed_out ? 124 : waited ? waited->status() : 1;
  }

  // The command could write the admin dir (git must): a FIFO it left where git expects HEAD, the
  // index or a reflog would hang the session's end below, every later command, and the user's
  // own `git gc`. Moved aside now, and said.
  if (auto repaired = repair_admin_files(w); !repaired)
    result.warnings.push_back(repaired.error().message);
  else
    for (const auto& moved : *repaired)
      result.warnings.push_back("the command left a file git cannot read: " + moved);

  if (session) {
    auto ended = end_confined_session(project, w, *session);
    if (ended) {
      result.commits = ended->commits;
      for (const auto& warning : ended->warnings)
        result.warnings.push_back(warning);
    } else {
      result.warnings.push_back("sandbox: " + ended.error().message);
    }
  }

  lease.release();
  // --ephemeral: a workspace that changed nothing goes away; one with changes stays for review.
  if (options.ephemeral) {
    Workspace now = BERTH_TRY(find_workspace(project, w.name));
    Captured state = BERTH_TRY(capture(project, now));
    if (state.clean() && state.head == now.base) {
      auto discarded = discard_workspace(project, now.name, Force::yes, Trash::no);
      result.kept = !discarded.has_value();
      if (!discarded) result.warnings.push_back(discarded.error().message);
    }
  }
  return result;
}

} // namespace berth

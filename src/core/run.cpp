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
#include "core/sandbox_policy.hpp"
#include "core/workspace_git.hpp"
#include "util/child_process.hpp"
#include "util/paths.hpp"
#include "util/process_info.hpp"

#include <chrono>
#include <cstdlib>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <thread>
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

// Every usage error before anything happens: a refused run changes nothing.
struct RunPlan {
  std::optional<SandboxMode> mode;
  std::map<std::string, std::string> extra_env;
  SandboxPaths sandbox_paths; ///< with a mode
};

Result<RunPlan> check_run_options(const Project& project, const RunOptions& options) {
  RunPlan plan;
  plan.mode = BERTH_TRY(sandbox_mode(project, options));
  if (!plan.mode && (!options.allow_write.empty() || !options.allow_read.empty()))
    return fail(ErrorCode::usage,
                fmt::format("{} needs the sandbox",
                            options.allow_write.empty() ? "--allow-read" : "--allow-write"),
                "add --sandbox (unsandboxed, the command can write and read everything you can)");
  // A year at most: past that the deadline overflows the clock (1e18 s would stop the command
  // at once), and no command means it.
  constexpr double kMaxTimeout = 366.0 * 24 * 3600;
  if (options.timeout && !(*options.timeout > 0 && *options.timeout <= kMaxTimeout))
    return fail(ErrorCode::usage,
                fmt::format("--timeout {}: it must be a number of seconds above 0 and at most "
                            "{} (a year)",
                            *options.timeout, kMaxTimeout),
                "leave the timeout out (no --timeout) to let the command run as long as it "
                "takes");

  for (const auto& kv : options.env) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      return fail(ErrorCode::usage, fmt::format("--env '{}': expected KEY=VALUE", kv));
    plan.extra_env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  if (plan.mode)
    plan.sandbox_paths = BERTH_TRY(sandbox_paths(project, options.allow_write, options.allow_read));
  return plan;
}

// The command, where and how it starts: the workspace's environment, its own process group (so
// a timeout, a Ctrl-C or a cancel reaches all it started), its streams passed through, or piped
// when the front end captures them (stdin /dev/null then: nobody would type into it).
util::SpawnOptions spawn_options(const Project& project, const RunOptions& options,
                                 const RunPlan& plan, const Workspace& w, const std::string& cwd) {
  util::SpawnOptions spawn;
  spawn.argv = options.command;
  if (spawn.argv.empty()) {
    const char* shell = std::getenv("SHELL");
    spawn.argv = {shell && *shell ? shell : "/bin/sh"};
  }
  spawn.cwd = cwd;
  if (options.on_output) {
    spawn.in = util::Stream::null;
    spawn.out = spawn.err = util::Stream::pipe;
  } else {
    spawn.in = spawn.out = spawn.err = util::Stream::inherit;
  }
  spawn.group = util::ProcessGroup::own;
  for (const auto& [key, value] : workspace_environment(project, w))
    spawn.env[key] = value;
  for (const auto& [key, value] : plan.extra_env)
    spawn.env[key] = value;
  return spawn;
}

// The sandbox: a confined session (detached HEAD, object quarantine, private TMPDIR) and the
// kernel-enforced policy around the child. A new session instead of a group: no controlling
// terminal, so no keystrokes pushed into the user's shell (TIOCSTI).
Result<PreparedSandbox> enter_sandbox(const Project& project, const Workspace& w,
                                      const RunPlan& plan, bool network, util::SpawnOptions& spawn,
                                      std::optional<ConfinedSession>& session, RunResult& result) {
  const SandboxPaths& paths = plan.sandbox_paths;
  BERTH_TRY(make_sandbox_dirs(paths));
  session = BERTH_TRY(begin_confined_session(project, w));
  SandboxRequest request{*plan.mode,
                         network ? Network::on : Network::off,
                         w.path,
                         w.git_dir,
                         session->quarantine,
                         session->tmpdir,
                         {paths.cache_dir},
                         paths.hidden,
                         paths.stub_dir,
                         {}};
  // The run's own workspace's .env copies stay readable: set-up copied them there for its tests.
  if (auto own = util::real_path(w.path))
    std::erase_if(request.hidden, [&](const std::string& h) {
      std::string name = util::basename(h);
      return util::is_within(h, *own) && (name == ".env" || name.rfind(".env.", 0) == 0);
    });
  request.writable.insert(request.writable.end(), paths.writable.begin(), paths.writable.end());
  int fd = 0;
  for (util::Stream stream : {spawn.in, spawn.out, spawn.err}) {
    if (stream == util::Stream::inherit) request.inherited_streams.push_back(fd);
    ++fd;
  }
  auto prepared = prepare_sandbox(request);
  if (!prepared) {
    (void)end_confined_session(project, w, *session);
    session.reset();
    return tl::unexpected(prepared.error());
  }
  // The tool caches, unless the user set one with --env.
  for (const auto& [key, value] : paths.cache_env)
    if (!plan.extra_env.count(key)) spawn.env[key] = value;
  for (const auto& [key, value] : session->env)
    spawn.env[key] = value;
  spawn.argv.insert(spawn.argv.begin(), prepared->argv_prefix.begin(), prepared->argv_prefix.end());
  spawn.child_setup = prepared->apply_in_child;
  spawn.group = util::ProcessGroup::session;
  spawn.close_other_fds = true;
  result.sandbox_layers = prepared->layers;
  for (const auto& m : prepared->missing)
    result.warnings.push_back("sandbox: not enforced: " + m);
  for (const auto& warning : prepared->warnings)
    result.warnings.push_back("sandbox: " + warning);
  return std::move(*prepared);
}

// Passed through: the front end owns the terminal and signals (on_start); a timeout stops the
// whole group with TERM, a grace period, then KILL.
void wait_passed_through(util::Child& child, const RunOptions& options, RunResult& result) {
  pid_t group = child.pid(); // the group outlives its leader: reached by its id once reaped
  std::optional<std::chrono::milliseconds> limit;
  if (options.timeout)
    limit = std::chrono::milliseconds(static_cast<int64_t>(*options.timeout * 1000));
  bool timed_out = false;
  auto waited = child.wait(limit, &timed_out);
  if (waited && timed_out) {
    result.timed_out = true;
    ::kill(-group, SIGTERM);
    bool still = false;
    waited = child.wait(std::chrono::milliseconds(2000), &still);
    if (waited && still) {
      ::kill(-group, SIGKILL);
      waited = child.wait();
    }
    ::kill(-group, SIGKILL); // stragglers that ignored TERM in the group
  }
  if (!waited) result.warnings.push_back(waited.error());
  result.exit_status = result.timed_out ? 124 : waited ? waited->status() : 1;
  if (waited && !result.timed_out) result.signal = waited->signal;
}

// Captured: both pipes drained together (no deadlock on a full one), every chunk to the sink;
// the timeout and the caller's cancel stop the group alike (TERM, 2 s, KILL).
void wait_captured(util::Child& child, const RunOptions& options, RunResult& result) {
  std::optional<std::chrono::steady_clock::time_point> timeout_at;
  if (options.timeout)
    timeout_at = std::chrono::steady_clock::now() +
                 std::chrono::milliseconds(static_cast<int64_t>(*options.timeout * 1000));
  auto stop = [&] {
    if (options.cancelled && options.cancelled()) return result.cancelled = true;
    if (timeout_at && std::chrono::steady_clock::now() >= *timeout_at)
      return result.timed_out = true;
    return false;
  };
  auto sink = [&](int fd, std::string_view chunk) { options.on_output(chunk, fd); };
  auto waited = child.communicate({}, sink, std::nullopt, true, stop, false);
  ::kill(-child.pid(), SIGKILL); // stragglers in the group
  if (!waited) result.warnings.push_back(waited.error());
  result.exit_status = result.cancelled   ? 130
                       : result.timed_out ? 124
                       : waited           ? waited->status()
                                          : 1;
  if (waited && !result.cancelled && !result.timed_out) result.signal = waited->signal;
}

// The command could write the admin dir (git must): a FIFO it left where git expects HEAD, the
// index or a reflog would hang the session's end, every later command, and the user's own
// `git gc`. Moved aside now, and said.
void repair_after_command(const Workspace& w, RunResult& result) {
  if (auto repaired = repair_admin_files(w); !repaired)
    result.warnings.push_back(repaired.error().message);
  else
    for (const auto& moved : *repaired)
      result.warnings.push_back("the command left a file git cannot read: " + moved);
}

// The sandbox's end: commits made inside move onto the branch, the quarantine is judged.
void leave_sandbox(const Project& project, const Workspace& w, const ConfinedSession& session,
                   RunResult& result) {
  auto ended = end_confined_session(project, w, session);
  if (!ended) {
    result.warnings.push_back("sandbox: " + ended.error().message);
    return;
  }
  result.commits = ended->commits;
  for (const auto& warning : ended->warnings)
    result.warnings.push_back(warning);
}

// --ephemeral: a workspace that changed nothing goes away; one with changes stays for review.
Result<void> remove_if_unchanged(const Project& project, const std::string& name,
                                 RunResult& result) {
  Workspace now = BERTH_TRY(find_workspace(project, name));
  Captured state = BERTH_TRY(capture(project, now));
  if (state.clean() && state.head == now.base) {
    auto discarded = discard_workspace(project, now.name, Force::yes, Trash::no);
    result.kept = !discarded.has_value();
    if (!discarded) result.warnings.push_back(discarded.error().message);
  }
  return {};
}

} // namespace

Result<RunResult> run_in_workspace(const Project& project, const RunOptions& options) {
  RunPlan plan = BERTH_TRY(check_run_options(project, options));
  RunResult result;
  if (options.ephemeral) {
    NewOptions create;
    create.name = options.name;
    create.owner = "ephemeral";
    create.on_setup = options.on_setup;
    BERTH_TRY(create_workspace(project, create));
  }

  // Busy while it runs (released however this returns): commit, sync, discard and accept refuse
  // meanwhile, unless the command itself calls them.
  Lease lease = BERTH_TRY(Lease::take(project, options.name, "run"));
  Workspace w = lease.workspace();
  result.name = w.name;
  result.path = w.path;
  result.cwd = run_directory(project, w);

  util::SpawnOptions spawn = spawn_options(project, options, plan, w, result.cwd);
  std::optional<ConfinedSession> session;
  PreparedSandbox sandbox;
  if (plan.mode)
    sandbox = BERTH_TRY(enter_sandbox(project, w, plan, options.network, spawn, session, result));

  auto child = util::spawn(spawn);
  if (plan.mode) release_sandbox(sandbox);
  if (child && session) record_session_command(project, w, *session, child->pid());
  if (!child) {
    // Like a shell: 127 when the command cannot be started.
    result.exit_status = 127;
    result.warnings.push_back(child.error());
  } else {
    // The front end's signals and terminal (RunOptions::on_start), until the command ended.
    if (options.on_start) options.on_start(child->pid(), plan.mode.has_value());
    struct Ended {
      const std::function<void()>& on_end;
      ~Ended() {
        if (on_end) on_end();
      }
    } ended{options.on_end};
    // Landlock's run has an IPC namespace of its own (bwrap's a pid namespace, which ends its
    // processes with it): what left the run's session (`setsid … &`) is found there.
    std::string run_namespace;
    if (plan.mode && *plan.mode != SandboxMode::bwrap)
      run_namespace = util::namespace_of(child->pid(), "ipc");
    if (options.on_output)
      wait_captured(*child, options, result);
    else
      wait_passed_through(*child, options, result);
    // Nothing of a sandboxed run outlives it (a daemon would write the workspace on, unseen).
    for (int round = 0; round < 50 && util::kill_namespace(run_namespace, "ipc") > 0; ++round)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }

  repair_after_command(w, result);
  if (session) leave_sandbox(project, w, *session, result);
  lease.release();
  if (options.ephemeral) BERTH_TRY(remove_if_unchanged(project, w.name, result));
  return result;
}

} // namespace berth

// fork and pick: N attempts at one task (TASK-1 ... TASK-N, one base), each optionally running
// the same command with its output to a log kept with the fork; then one attempt is accepted and
// its siblings go to the trash. The record is berth/fork.hpp's; docs/fork.md describes both.
#include "berth/fork.hpp"
#include "berth/json.hpp"
#include "core/compare.hpp"
#include "core/git.hpp"
#include "core/lease.hpp"
#include "core/name.hpp"
#include "core/operations/params.hpp"
#include "core/registry.hpp"
#include "util/paths.hpp"
#include "util/try.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <mutex>
#include <thread>

namespace berth::ops {

namespace {

// More attempts than anyone compares is a typo (-n 800 for -n 8): refused before anything.
constexpr int kMaxAttempts = 64;

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Fork makes its attempts and takes them back in batches: warm pool slots first, one background
// refill for all, and no discard waiting for another's deletion (docs/decisions/0011).
nlohmann::json discard_attempts(const Project& project, const std::vector<std::string>& names,
                                Trash trash, std::vector<std::string>& warnings) {
  nlohmann::json discarded = nlohmann::json::array();
  auto results = discard_workspaces(project, names, Force::yes, trash);
  for (size_t i = 0; i < results.size(); ++i)
    if (!results[i]) {
      warnings.push_back(fmt::format("{}: {}", names[i], results[i].error().message));
    } else {
      // What each discard warned of (a branch kept, a tree left to delete by hand: each names
      // its workspace) is said too.
      add_warnings(warnings, results[i]->warnings);
      discarded.push_back(*results[i]);
    }
  return discarded;
}

// Marks a created workspace as attempt `i` of `task` in its record (under the registry lock).
Result<Workspace> mark_attempt(const Project& project, const std::string& name,
                               const std::string& task, int attempt) {
  Registry registry(project.berth_dir());
  auto lock = BERTH_TRY(registry.lock());
  auto record = BERTH_TRY(registry.load(name_slug(name)));
  if (!record)
    return fail(ErrorCode::not_found, fmt::format("workspace '{}' vanished while forking", name));
  record->fork = task;
  record->attempt = attempt;
  BERTH_TRY(registry.save(*record));
  return *record;
}

// Everything that can be refused is refused here, before any workspace exists.
Result<void> check_fork(const Project& project, const std::string& task, int64_t n,
                        std::optional<int64_t> jobs, std::optional<double> timeout) {
  if (n < 1 || n > kMaxAttempts)
    return fail(ErrorCode::usage,
                fmt::format("-n {}: the number of attempts must be 1 to {}", n, kMaxAttempts),
                "e.g. berth fork TASK -n 3 -- CMD");
  if (jobs && *jobs < 1)
    return fail(ErrorCode::usage, fmt::format("--jobs {}: it must be at least 1", *jobs),
                "leave it out to run as many at once as there are cores");
  if (timeout && !(*timeout > 0 && *timeout <= 366.0 * 24 * 3600))
    return fail(ErrorCode::usage,
                fmt::format("--timeout {}: it must be a number of seconds above 0 and at most a "
                            "year",
                            *timeout),
                "leave the timeout out to let the attempts run as long as they take");
  BERTH_TRY(validate_name(task));
  // The longest attempt name decides: TASK-64 may be refused where TASK-1 is not.
  BERTH_TRY(validate_name(attempt_name(task, static_cast<int>(n))));
  // A record whose attempts were all discarded one by one is stale: run_fork replaces it.
  if (BERTH_TRY(load_fork(project, task)) && BERTH_TRY(fork_has_attempts(project, task)))
    return fail(ErrorCode::name_taken, fmt::format("a fork '{}' exists already", task),
                fmt::format("pick one of its attempts (berth pick {}), discard them, or choose "
                            "another TASK",
                            attempt_name(task, 1)));
  // The record's folder is the task's slug, so `a/b` and `a-b` share one: another task's record
  // with attempts left is refused too (this fork's record would replace it).
  for (const auto& other : BERTH_TRY(load_forks(project)))
    if (other.task != task && name_slug(other.task) == name_slug(task) &&
        BERTH_TRY(fork_has_attempts(project, other.task)))
      return fail(
          ErrorCode::name_taken,
          fmt::format("fork '{}' would share its record's folder with fork '{}'", task, other.task),
          "choose another TASK ('/' and '-' name the same folder)");
  // A workspace named TASK: `compare TASK` and `discard TASK` would mean two things.
  if (auto same = find_workspace(project, task); same || same.error().code != ErrorCode::not_found)
    return fail(
        ErrorCode::name_taken,
        fmt::format("workspace '{}' exists: a fork's task may not be a workspace's name", task),
        "choose another TASK");
  for (int i = 1; i <= n; ++i) {
    std::string name = attempt_name(task, i);
    auto found = find_workspace(project, name);
    if (found || found.error().code != ErrorCode::not_found)
      return fail(ErrorCode::name_taken,
                  fmt::format("workspace '{}' exists already: fork {} -n {} needs the names "
                              "{} to {}",
                              name, task, n, attempt_name(task, 1),
                              attempt_name(task, static_cast<int>(n))),
                  "choose another TASK, or discard it first");
  }
  return {};
}

// The attempts' commands, J at a time. Each run's output goes to its log; the record is saved as
// each starts and ends (under one mutex: several end at once).
struct Runner {
  Runner(const Project& project_, const Params& p_, const OperationContext& context_,
         ForkGroup& fork_)
      : project(project_), p(p_), context(context_), fork(fork_) {}
  const Project& project;
  const Params& p;
  const OperationContext& context;
  ForkGroup& fork;
  std::optional<std::chrono::steady_clock::time_point> deadline;
  std::mutex mutex;
  std::atomic<int> next{0};
  std::atomic<bool> stop{false}, timed_out{false};
  std::vector<std::string> warnings;

  bool should_stop() {
    if (stop) return true;
    if (context.stop_requested && context.stop_requested()) return stop = true;
    if (deadline && std::chrono::steady_clock::now() >= *deadline) {
      timed_out = true;
      return stop = true;
    }
    return false;
  }

  void update(int i, const AttemptRun& run, std::string_view event) {
    std::lock_guard lock(mutex);
    fork.runs[i] = run;
    if (auto saved = save_fork(project, fork); !saved) warnings.push_back(saved.error().message);
    if (context.on_event) {
      nlohmann::json fields = {
          {"name", run.name}, {"attempt", run.attempt}, {"state", run.state}, {"log", run.log}};
      if (run.exit_code >= 0) fields["exit_status"] = run.exit_code;
      if (run.duration_ms > 0) fields["duration_ms"] = run.duration_ms;
      context.on_event(event, fields);
    }
  }

  void run_one(int i) {
    AttemptRun run = fork.runs[i];
    if (should_stop()) {
      run.state = "not_started";
      update(i, run, "attempt_finished");
      return;
    }
    RunOptions options;
    options.name = run.name;
    options.command = fork.command;
    options.env = fork.env;
    options.env.push_back(fmt::format("BERTH_ATTEMPT={}", run.attempt));
    options.env.push_back(fmt::format("BERTH_ATTEMPTS={}", fork.attempts));
    options.env.push_back("BERTH_FORK=" + fork.task);
    options.sandbox = fork.sandbox.value_or("off");
    options.network = fork.network;
    std::FILE* log = std::fopen(run.log.c_str(), "wb");
    // Captured, never passed through: N commands must not write over each other on the terminal.
    // The front end's live progress gets the last line written (`attempt_output`), a few times a
    // second at most.
    std::string partial, last_line, sent;
    std::chrono::steady_clock::time_point last_sent{};
    options.on_output = [&, log](std::string_view chunk, int) {
      if (log) std::fwrite(chunk.data(), 1, chunk.size(), log);
      if (!context.on_event) return;
      partial.append(chunk);
      auto end = partial.find_last_of('\n');
      if (end == std::string::npos) {
        if (partial.size() > 4096) partial.erase(0, partial.size() - 4096);
        return;
      }
      auto start = partial.find_last_of('\n', end == 0 ? 0 : end - 1);
      start = start == std::string::npos || start >= end ? 0 : start + 1;
      if (end > start) last_line = partial.substr(start, end - start);
      partial.erase(0, end + 1);
      auto now = std::chrono::steady_clock::now();
      if (last_line.empty() || now - last_sent < std::chrono::milliseconds(200)) return;
      last_sent = now;
      std::lock_guard lock(mutex);
      context.on_event("attempt_output",
                       {{"name", run.name}, {"attempt", run.attempt}, {"line", sent = last_line}});
    };
    options.cancelled = [this] { return should_stop(); };
    run.state = "running";
    run.started_ms = now_ms();
    update(i, run, "attempt_started");
    auto r = run_in_workspace(project, options);
    if (log) std::fclose(log);
    // The last line as it ended (the throttle may have held it back; it may lack its newline).
    if (!partial.empty()) last_line = partial;
    if (context.on_event && !last_line.empty() && last_line != sent) {
      std::lock_guard lock(mutex);
      context.on_event("attempt_output",
                       {{"name", run.name}, {"attempt", run.attempt}, {"line", last_line}});
    }
    run.duration_ms = std::max<int64_t>(1, now_ms() - run.started_ms);
    if (!r) {
      run.state = "failed_to_start";
      run.error = r.error().message;
    } else if (r->cancelled) {
      run.state = timed_out ? "timed_out" : "interrupted";
    } else if (r->timed_out) {
      run.state = "timed_out";
    } else if (r->signal > 0) {
      run.state = "signalled";
      run.signal = r->signal;
    } else {
      run.state = "exited";
      run.exit_code = r->exit_status;
    }
    if (r) {
      std::lock_guard lock(mutex); // attempts end at once
      for (const auto& w : r->warnings)
        warnings.push_back(fmt::format("{}: {}", run.name, w));
    }
    update(i, run, "attempt_finished");
    // While the other attempts still run: what the compare after the fork looks at, made now
    // (an optimisation only: a failure here is the compare's to report).
    if (r && !should_stop()) (void)prepare_comparison(project, run.name);
  }

  void run_all(int jobs) {
    auto worker = [this] {
      for (int i; (i = next++) < static_cast<int>(fork.runs.size());)
        run_one(i);
    };
    std::vector<std::thread> threads;
    for (int t = 1; t < jobs; ++t)
      threads.emplace_back(worker);
    worker();
    for (auto& t : threads)
      t.join();
  }
};

// The fork's exit status: 130 when Ctrl-C or SIGTERM stopped it; 1 when an attempt's command
// failed, timed out or could not start; 6 when an attempt's set-up failed (as `new`); else 0.
int fork_exit(const ForkGroup& fork, bool interrupted, bool setup_failed) {
  if (interrupted) return 130;
  for (const auto& run : fork.runs)
    if (run.state != "exited" || run.exit_code != 0) return 1;
  return setup_failed ? kSetupFailedExit : 0;
}

Result<Outcome> run_fork(const Project& project, const Params& p, const OperationContext& context) {
  std::string task = p.string("task");
  int64_t n = p.optional_integer("attempts").value_or(0);
  auto jobs = p.optional_integer("jobs");
  auto timeout = p.optional_number("timeout");
  std::vector<std::string> command = p.strings("command");
  BERTH_TRY(check_fork(project, task, n, jobs, timeout));
  if (command.empty() && (timeout || p.has("sandbox") || p.has("net") || p.has("env") || jobs))
    return fail(ErrorCode::usage, "--timeout, --jobs, --env, --sandbox and --net need a command",
                "add -- CMD..., or leave them out to only create the attempts");
  if (p.string("net") == "off" && (!p.has("sandbox") || p.string("sandbox") == "off"))
    return fail(ErrorCode::usage, "--net=off needs the sandbox", "add --sandbox");
  // (check_fork let a stale record through: its old logs go with it.)
  if (BERTH_TRY(load_fork(project, task))) BERTH_TRY(remove_fork(project, task));

  ForkGroup fork;
  fork.task = task;
  fork.attempts = static_cast<int>(n);
  fork.created = now_ms() / 1000;
  fork.command = command;
  if (!command.empty()) {
    // The confinement the attempts run under, as run resolves it (--sandbox, else config
    // run.sandbox): recorded so that `compare --test` confines its test the same way.
    std::string mode = p.optional_string("sandbox").value_or(
        project.config().get_bool("run.sandbox") ? "landlock" : "off");
    if (mode != "off") fork.sandbox = mode;
    fork.network = p.string("net") != "off";
    fork.env = p.strings("env");
  }

  // Ctrl-C is ours from here on (the front end's first call arms its watch): one during creation
  // lets the creation finish and the fork be recorded, then no command starts (`not_started`,
  // exit 130). (Without a command too: killed half-way, a fork left attempts no record named,
  // which neither `discard TASK` nor a new `fork TASK` could take.)
  if (context.stop_requested) context.stop_requested();
  // Meanwhile every git call runs in a process group of its own, so that the terminal's Ctrl-C
  // reaches berth alone: it killed a checkout (a filter, a hook) half-way, and the fork failed
  // with its attempts rolled back instead of finishing them and starting no command.
  std::optional<GitCallsOwnGroup> own_group;
  if (context.stop_requested) own_group.emplace();

  // Attempt 1 fixes the base (a bad --base is refused there, before anything exists); the
  // others start from its SHA, so all share one base even if the branch moves meanwhile. They
  // are made in one batch.
  std::vector<NewOptions> requests(static_cast<size_t>(n));
  for (int i = 1; i <= n; ++i) {
    auto& options = requests[static_cast<size_t>(i - 1)];
    options.name = attempt_name(task, i);
    options.base = p.optional_string("base");
    options.owner = p.string("owner");
    // Each attempt's set-up events (its post-checkout hook's output among them) are that
    // attempt's: a reader of the front end's events sees which workspace printed what.
    if (context.on_setup)
      options.on_setup = [listener = context.on_setup, name = options.name](SetupEvent e) {
        e.workspace = name;
        listener(e);
      };
  }
  std::vector<Result<Created>> created;
  created.push_back(create_workspace(project, requests[0]));
  if (created[0] && n > 1) {
    std::vector<NewOptions> rest(requests.begin() + 1, requests.end());
    for (auto& options : rest)
      options.base = created[0]->workspace.base;
    for (auto& result : create_workspaces(project, rest))
      created.push_back(std::move(result));
  }
  std::vector<std::string> made;
  for (size_t i = 0; i < created.size(); ++i)
    if (created[i]) made.push_back(requests[i].name);
  // Nothing half-made stays: on any failure the attempts made go (they hold no work yet).
  auto roll_back = [&](const Error& error) {
    std::vector<std::string> ignored;
    discard_attempts(project, made, Trash::no, ignored);
    return tl::unexpected(error);
  };
  for (const auto& result : created)
    if (!result) return roll_back(result.error());

  nlohmann::json workspaces = nlohmann::json::array();
  Outcome out;
  // A set-up that failed is said, as `new` says it (the attempt is kept, marked, and its command
  // still runs): never a fork that looks ready when its attempts are not.
  bool setup_failed = false;
  for (int i = 1; i <= n; ++i) {
    const auto& made_one = *created[static_cast<size_t>(i - 1)];
    auto marked = mark_attempt(project, made_one.workspace.name, task, i);
    if (!marked) return roll_back(marked.error());
    if (i == 1) fork.base = marked->base;
    add_warnings(out.warnings, made_one.warnings);
    add_warnings(out.warnings, made_one.setup.warnings);
    if (made_one.setup.failed) {
      setup_failed = true;
      out.warnings.push_back(setup_failed_warning(*marked, "created"));
    }
    workspaces.push_back(*marked);
    AttemptRun run;
    run.name = made_one.workspace.name;
    run.attempt = i;
    run.log = util::join(fork_dir(project, task), fmt::format("attempt-{}.log", i));
    if (!command.empty()) fork.runs.push_back(run);
  }
  if (auto saved = save_fork(project, fork); !saved) {
    std::vector<std::string> ignored;
    discard_attempts(project, made, Trash::no, ignored);
    return tl::unexpected(saved.error());
  }

  if (!command.empty()) {
    Runner runner(project, p, context, fork);
    if (timeout)
      runner.deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<int64_t>(*timeout * 1000));
    unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    int j = static_cast<int>(std::min<int64_t>(jobs.value_or(cores), n));
    runner.run_all(j);
    for (auto& w : runner.warnings)
      out.warnings.push_back(std::move(w));
    out.exit = fork_exit(fork, runner.stop && !runner.timed_out, setup_failed);
    if (runner.timed_out)
      out.warnings.push_back(fmt::format("timed out: stopped the attempts after {}s", *timeout));
    else if (out.exit == 130)
      out.warnings.push_back("interrupted: stopped the attempts; their work is kept");
  } else if (context.stop_requested && context.stop_requested()) {
    out.exit = 130;
    out.warnings.push_back(fmt::format(
        "interrupted: the {} attempts were made and recorded (`berth discard {}` removes them)", n,
        task));
  } else if (setup_failed) {
    out.exit = kSetupFailedExit;
  }
  out.document = {{"fork", fork_to_json(fork)},
                  {"dir", fork_dir(project, task)},
                  {"workspaces", std::move(workspaces)}};
  return out;
}

// pick: the attempt lands as `accept` would land it; only then do its siblings go to the trash.
// Every refusal comes first, so a refused or conflicting pick changes nothing at all.
Result<Outcome> run_pick(const Project& project, const Params& p, const OperationContext& context) {
  // Ctrl-C, SIGTERM, SIGHUP: stop before the landing (nothing changed) or after it (the siblings
  // are kept), never half-way (docs/fork.md).
  StopAtSafePoints stop(context);
  std::string name = p.string("name");
  auto found = find_workspace(project, name);
  if (!found && found.error().code == ErrorCode::not_found) {
    // The fork's task rather than one of its attempts: name them.
    std::vector<std::string> attempts;
    for (const auto& w : BERTH_TRY(Registry(project.berth_dir()).load_all()))
      if (w.fork == name) attempts.push_back(w.name);
    if (!attempts.empty())
      return fail(ErrorCode::usage,
                  fmt::format("'{}' is a fork; pick one of its attempts: {}", name,
                              fmt::join(attempts, ", ")),
                  fmt::format("`berth compare {}` shows them side by side; then `berth pick {}`",
                              name, attempts.front()));
  }
  Workspace picked = BERTH_TRY(std::move(found));
  if (picked.fork.empty())
    return fail(ErrorCode::usage, fmt::format("'{}' is not an attempt of a fork", name),
                fmt::format("land it with `berth accept {}`", name));
  std::string task = picked.fork;
  std::vector<std::string> siblings;
  for (const auto& w : BERTH_TRY(Registry(project.berth_dir()).load_all()))
    if (w.fork == task && w.name != name) siblings.push_back(w.name);
  // A sibling whose command still runs (its lease is live) is refused, with nothing changed.
  // The leases taken here are HELD until the siblings are discarded: a `berth run` (or commit,
  // sync) starting in a sibling after this check is refused `busy` instead of being stopped and
  // discarded half-way. With --keep-others the siblings are not touched, so they may run.
  std::vector<Lease> held;
  if (!p.flag("keep_others"))
    for (const auto& attempt : siblings) {
      auto lease = Lease::take(project, attempt, "pick");
      if (!lease)
        return fail(
            lease.error().code,
            fmt::format("cannot pick {}: attempt {}: {}", name, attempt, lease.error().message),
            lease.error().hint.empty()
                ? "wait for the fork's commands to end, or pass "
                  "--keep-others to leave the siblings as they are"
                : lease.error().hint + " (or pass --keep-others to leave the "
                                       "siblings as they are)");
      held.push_back(std::move(*lease));
    }
  AcceptOptions options;
  if (auto s = p.optional_string("strategy")) options.strategy = parse_strategy(*s);
  options.into = p.optional_string("into");
  options.message = p.optional_string("message");
  options.dry_run = p.flag("dry_run");
  options.stop_requested = stop.requested();
  options.on_hook_output = context.on_hook_output;
  auto accepted = BERTH_TRY(accept_workspace(project, name, options));
  if (stop.asked() && (options.dry_run || accepted.empty || !accepted.conflicts.empty()))
    return fail(ErrorCode::stopped, "interrupted: nothing was changed");
  nlohmann::json document = {{"task", task}, {"picked", name}, {"accepted", accepted}};
  document["discarded"] = nlohmann::json::array();
  document["kept"] = p.flag("keep_others") || options.dry_run || !accepted.conflicts.empty()
                         ? nlohmann::json(siblings)
                         : nlohmann::json::array();
  if (!accepted.conflicts.empty())
    return Outcome{document, {accepted.hint}, {}, exit_status(ErrorCode::conflict)};
  Outcome out{document, accepted.warnings, {}, 0};
  if (options.dry_run) return out;
  // Nothing landed (the attempt has no change): nothing is discarded either. Its siblings may hold
  // the work (a pick of the wrong attempt); they stay attempts of the fork, as they were.
  if (accepted.empty) {
    out.document["kept"] = siblings;
    out.document["fork_removed"] = false;
    if (!siblings.empty())
      out.warnings.push_back(fmt::format("nothing landed, so {}'s sibling attempts stay as they "
                                         "were (`berth discard {}` discards the fork's attempts)",
                                         name, task));
    return out;
  }
  // Asked to stop once the attempt landed: its siblings stay as they are, for a later
  // `berth discard TASK` (or pick's --keep-others had kept them anyway).
  if (stop.asked()) {
    if (!p.flag("keep_others")) out.document["kept"] = siblings;
    out.warnings.push_back(fmt::format(
        "interrupted after the landing: {}; {} (`berth discard {}` discards the fork's attempts "
        "when you are done with them)",
        what_landed(accepted),
        accepted.discarded ? name + " was discarded, its siblings were not"
                           : name + " and its siblings were not discarded",
        task));
    out.document["fork_removed"] = false;
    out.exit = 130;
    return out;
  }
  // (Each held lease becomes that sibling's discard claim: discard sees this process hold it.)
  if (!p.flag("keep_others"))
    out.document["discarded"] = discard_attempts(project, siblings, Trash::yes, out.warnings);
  held.clear();
  // The record goes with the last attempt (compare has nothing left to show).
  bool left = false;
  for (const auto& w : BERTH_TRY(Registry(project.berth_dir()).load_all()))
    left = left || w.fork == task;
  if (!left) BERTH_TRY(remove_fork(project, task));
  out.document["fork_removed"] = !left;
  // Asked to stop while the siblings went to the trash: it had all been done by then.
  if (stop.asked()) {
    out.warnings.push_back(
        fmt::format("interrupted too late to stop anything: {}, and the pick had finished",
                    what_landed(accepted)));
    out.exit = 130;
  }
  return out;
}

} // namespace

Entry fork_entry() {
  Operation op;
  op.name = "fork";
  op.summary = "create N attempts at one task (TASK-1..TASK-N), optionally running -- CMD in each";
  Param task = positional_param("task", "the task: attempts are named TASK-1 ... TASK-N");
  Param attempts = string_param("attempts", "how many attempts (1 to 64)", "n");
  attempts.kind = ParamKind::integer;
  attempts.required = true;
  Param jobs = string_param("jobs", "run at most J commands at once (default: the cores)", "j");
  jobs.kind = ParamKind::integer;
  Param timeout = string_param(
      "timeout", "stop every attempt's process group after SECONDS (the fork exits 1)");
  timeout.kind = ParamKind::number;
  Param sandbox = sandbox_param("confine each attempt's writes to its workspace; MECHANISM is "
                                "landlock (a bare --sandbox), bwrap, best-effort, or off");
  Param command = string_param("command", "the command each attempt runs, after -- (optional)");
  command.kind = ParamKind::strings;
  command.positional = true;
  op.params = {task,
               attempts,
               string_param("base", "commit every attempt starts from (default: HEAD)"),
               jobs,
               timeout,
               env_param(),
               sandbox,
               net_param(),
               string_param("owner", "a label for who works there (agent, ticket, person)"),
               command};
  op.schema = "fork";
  return {op, run_fork};
}

Entry pick_entry() {
  Operation op;
  op.name = "pick";
  op.summary = "accept one attempt of a fork and discard its siblings to the trash";
  Param strategy =
      string_param("strategy", "apply (stage in your checkout), merge, squash, ff or rebase", "s");
  strategy.choices = {"apply", "merge", "squash", "ff", "rebase"};
  op.params = {name_param("the attempt to land (TASK-i)"),
               strategy,
               string_param("into", "target branch (default: the branch of the main checkout)"),
               string_param("message", "commit message (merge, squash)", "m"),
               flag_param("dry_run", "say what would happen; change nothing", "n"),
               flag_param("keep_others", "keep the sibling attempts instead of discarding them")};
  op.destructive = true;
  op.schema = "pick";
  return {op, run_pick};
}

} // namespace berth::ops

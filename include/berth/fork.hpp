/// Forks: N attempts at one task (`berth fork TASK -n N`), recorded as a group so that `list`,
/// `compare` and `pick` find the attempts and what their runs did. docs/fork.md describes them.
#pragma once

#include "berth/berth.hpp"

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#pragma GCC visibility push(default)
namespace berth {

/// What one attempt's command did (a fork made without a command has none).
struct AttemptRun {
  std::string name; ///< its workspace, "TASK-i"
  int attempt = 0;  ///< i, from 1
  /// "pending" (not started yet), "running", "exited" (see exit_code), "signalled" (see signal),
  /// "timed_out", "interrupted" (Ctrl-C or SIGTERM to fork), "not_started" (fork stopped first),
  /// "failed_to_start" (the command could not be run: `error` says why).
  std::string state = "pending";
  int exit_code = -1;      ///< the command's exit status when it exited (-1 otherwise)
  int signal = 0;          ///< the signal that ended it (0: none)
  int64_t started_ms = 0;  ///< unix milliseconds (0: not started)
  int64_t duration_ms = 0; ///< wall time of the run (0: not started)
  std::string log;         ///< absolute path of its output (stdout and stderr together)
  std::string error;       ///< why it failed to start ("" otherwise)
};

/// A fork as recorded in <berth>/forks/<slug of TASK>/fork.json; its attempts' logs are kept
/// beside it (attempt-<i>.log).
struct ForkGroup {
  std::string task;                 ///< TASK: attempts are named TASK-1 ... TASK-N
  std::string base;                 ///< full SHA every attempt started from
  int attempts = 0;                 ///< N
  int64_t created = 0;              ///< unix seconds
  std::vector<std::string> command; ///< the command each attempt ran (empty: created only)
  std::vector<AttemptRun> runs;     ///< one per attempt, in attempt order, when a command ran
  /// How the attempts' command was confined, so that `compare --test` runs its test the same
  /// way: the sandbox mechanism ("landlock", "bwrap", "best-effort"; nullopt: unsandboxed, which
  /// is also what a record written before these fields says), whether the network was on, and
  /// the --env KEY=VALUE pairs given to fork.
  std::optional<std::string> sandbox;
  bool network = true;
  std::vector<std::string> env;
};

/// The name of attempt `i` of `task`: "TASK-i".
std::string attempt_name(std::string_view task, int attempt);
/// <berth>/forks/<slug of TASK>: where the fork's record and logs live.
std::string fork_dir(const Project& project, std::string_view task);
/// The fork's record; nullopt when there is none (or the folder holds another task's record:
/// `a/b` and `a-b` share one).
Result<std::optional<ForkGroup>> load_fork(const Project& project, std::string_view task);
/// Every recorded fork, sorted by task.
Result<std::vector<ForkGroup>> load_forks(const Project& project);
/// Write the fork's record atomically (its folder is made when missing). Several attempts finish
/// at once: callers that update runs concurrently serialise through their own mutex or take the
/// project lock.
Result<void> save_fork(const Project& project, const ForkGroup& fork);
/// Remove the fork's record and logs (when its attempts are all gone).
Result<void> remove_fork(const Project& project, std::string_view task);
/// Whether any workspace is still an attempt of `task` (a record whose attempts were all
/// discarded one by one is stale: `fork` replaces it, `gc` removes it).
Result<bool> fork_has_attempts(const Project& project, std::string_view task);

/// JSON of a fork (docs/schema/fork.json's "fork" object) and back.
nlohmann::json fork_to_json(const ForkGroup& fork);
Result<ForkGroup> fork_from_json(const nlohmann::json& j, const std::string& where);

} // namespace berth
#pragma GCC visibility pop

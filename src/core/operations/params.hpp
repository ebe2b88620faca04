// What the operation handlers share: typed access to their JSON parameters, and the entry of
// each operation (one file each, op_<name>.cpp; the table in src/core/operations.cpp lists them).
#pragma once

#include "berth/operations.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace berth {
class GitCallsOwnGroup;
}

namespace berth::ops {

/// Read access to an operation's parameters. The table checks them against the entry's params
/// (check_params) before a handler runs, so a handler reads values of the kind it declared; an
/// absent (or null) one reads as empty / false / nullopt.
class Params {
public:
  explicit Params(const nlohmann::json& params) : params_(params) {}

  bool has(std::string_view name) const;
  bool flag(std::string_view name) const;
  std::string string(std::string_view name) const;
  std::optional<std::string> optional_string(std::string_view name) const;
  std::optional<int64_t> optional_integer(std::string_view name) const;
  std::optional<double> optional_number(std::string_view name) const;
  std::vector<std::string> strings(std::string_view name) const;

private:
  const nlohmann::json* find(std::string_view name) const;
  const nlohmann::json& params_;
};

/// Add `more` to `warnings`, each said once (attempts of a fork often warn alike).
void add_warnings(std::vector<std::string>& warnings, const std::vector<std::string>& more);

/// Builders for the Param entries the operations share.
Param name_param(std::string help = "workspace name");
Param flag_param(std::string name, std::string help, std::string short_name = {});
Param string_param(std::string name, std::string help, std::string short_name = {});
/// A required positional word, one of `choices` when they are given.
Param positional_param(std::string name, std::string help, std::vector<std::string> choices = {});
/// The agent a `hook` or `integrate` is for (claude, for now).
Param agent_param(std::string help);
/// What run, fork and compare --test share about the command they start: --sandbox[=MECHANISM]
/// (a bare --sandbox is landlock), --net on|off, and the repeatable --env KEY=VALUE (-e).
Param sandbox_param(std::string help);
Param net_param();
Param env_param();

/// The handler signature, without the project check the table adds.
using Handler = std::function<Result<Outcome>(const Project& project, const Params& params,
                                              const OperationContext& context)>;

/// The handler of an operation that finds its own project or needs none (needs_project = false).
using AloneHandler =
    std::function<Result<Outcome>(const Params& params, const OperationContext& context)>;

// One per command, in op_<name>.cpp: the entry, its `run` taking a Project (the table wraps it),
// or, with needs_project = false, its `alone` handler.
struct Entry {
  Operation operation;
  Handler handler;
  AloneHandler alone = nullptr;
};
Entry new_entry();
Entry list_entry();
Entry path_entry();
Entry status_entry();
Entry run_entry();
Entry shell_entry();
Entry diff_entry();
Entry compare_entry();
Entry commit_entry();
Entry accept_entry();
Entry sync_entry();
Entry discard_entry();
Entry restore_entry();
Entry pool_entry();
Entry watch_entry();
Entry doctor_entry();
Entry config_entry();
Entry trust_entry();
Entry hook_entry();
Entry integrate_entry();
Entry setup_entry();
Entry forget_entry(); // plain folders (issue 17)
Entry fork_entry();
Entry pick_entry();
Entry gc_entry();
Entry trash_entry();

/// The exit status of a command whose workspace is there but whose set-up failed (docs/errors.md):
/// neither success (the workspace is not ready as configured) nor an error (it exists, is kept,
/// and `berth setup NAME` runs the set-up again).
inline constexpr int kSetupFailedExit = 6;

/// new's and setup's outcome: the document, the set-up's warnings, and when a set-up command
/// failed a warning saying how to run it again and exit status 6 (`done`: "created").
Outcome setup_outcome(const Created& created, std::string_view done);
/// The warning of a workspace whose set-up failed: what failed and `berth setup NAME`.
std::string setup_failed_warning(const Workspace& w, std::string_view done);

/// For a command that writes into the user's checkout or moves refs under an intent record
/// (accept, pick): from here on Ctrl-C, SIGTERM and SIGHUP do not end berth but ask it to stop
/// (the front end's `stop_requested`, armed by its first call), and every git call runs in a
/// process group of its own (`GitCallsOwnGroup`), so that only berth hears the terminal's signal
/// and stops at a safe point: before the landing (nothing changed) or after it.
class StopAtSafePoints {
public:
  explicit StopAtSafePoints(const OperationContext& context);
  ~StopAtSafePoints();
  StopAtSafePoints(const StopAtSafePoints&) = delete;
  StopAtSafePoints& operator=(const StopAtSafePoints&) = delete;
  /// What the library polls (AcceptOptions::stop_requested); empty when the front end has none.
  std::function<bool()> requested() const { return stop_; }
  /// Whether the user has asked to stop.
  bool asked() const { return stop_ && stop_(); }

private:
  std::function<bool()> stop_;
  std::unique_ptr<GitCallsOwnGroup> own_group_;
};

/// The line an accept that landed says when the user asked it to stop: what was done (the change
/// landed or is staged; the workspace discarded) and what was not (kept, and how to discard it).
std::string landed_when_stopped(const Accepted& a, bool keep);
/// "the change landed on BRANCH (COMMIT)", for apply "the change is staged in CHECKOUT", into a
/// plain folder "the change is written into FOLDER".
std::string what_landed(const Accepted& a);

} // namespace berth::ops

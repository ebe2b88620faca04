#include "berth/fork.hpp"
#include "berth/json.hpp"
#include "core/gc.hpp"
#include "core/lease.hpp"
#include "core/operations/params.hpp"
#include "core/registry.hpp"
#include "util/human.hpp"
#include "util/try.hpp"

#include <fmt/format.h>

namespace berth::ops {
namespace {

// `discard TASK`, TASK a fork with no workspace of that name: every attempt goes, as `discard`
// takes each, and the fork's record with the last. An attempt whose command still runs refuses the
// whole (nothing changed) unless --force; one refused later (unsaved work under --no-trash) is left
// with its reason and sets the exit status, the others go.
Result<Outcome> discard_fork(const Project& project, const std::string& task, Force force,
                             Trash trash) {
  std::vector<std::string> attempts;
  for (const auto& w : BERTH_TRY(Registry(project.berth_dir()).load_all()))
    if (w.fork == task) attempts.push_back(w.name);
  if (force == Force::no)
    for (const auto& attempt : attempts)
      if (auto lease = Lease::take(project, attempt, "discard"); !lease)
        return fail(lease.error().code,
                    fmt::format("cannot discard fork {}: attempt {}: {}", task, attempt,
                                lease.error().message),
                    "wait for the fork's commands to end, or --force");
  Outcome out{nlohmann::json{{"task", task},
                             {"discarded", nlohmann::json::array()},
                             {"failed", nlohmann::json::array()}},
              {},
              {},
              0};
  auto results = discard_workspaces(project, attempts, force, trash);
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i]) {
      // What each discard warned of (a branch kept, a tree left to delete by hand: each names
      // its workspace) is said too.
      add_warnings(out.warnings, results[i]->warnings);
      out.document["discarded"].push_back(*results[i]);
      continue;
    }
    // An attempt refused on the way stays; the document says which and why, the status is its.
    out.document["failed"].push_back({{"name", attempts[i]}, {"error", results[i].error()}});
    out.warnings.push_back(fmt::format("{}: {} ({})", attempts[i], results[i].error().message,
                                       results[i].error().hint));
    if (out.exit == 0) out.exit = exit_status(results[i].error().code);
  }
  bool left = BERTH_TRY(fork_has_attempts(project, task));
  if (!left) BERTH_TRY(remove_fork(project, task));
  out.document["fork_removed"] = !left;
  return out;
}

} // namespace

Entry discard_entry() {
  Operation op;
  op.name = "discard";
  op.summary = "remove a workspace, keeping a snapshot in the trash";
  op.params = {
      name_param("workspace name, or a fork's TASK (all its attempts)"),
      flag_param("force", "discard even if busy, or with --no-trash even with unsaved work", "f"),
      flag_param("no_trash", "do not keep a snapshot (needs --force if there is unsaved work)")};
  op.destructive = true;
  op.schema = "discard";
  return {op,
          [](const Project& project, const Params& p, const OperationContext&) -> Result<Outcome> {
            Force force = p.flag("force") ? Force::yes : Force::no;
            Trash trash = p.flag("no_trash") ? Trash::no : Trash::yes;
            auto discarded = discard_workspace(project, p.string("name"), force, trash);
            // No workspace of that name: a fork's TASK stands for all its attempts.
            if (!discarded && discarded.error().code == ErrorCode::not_found)
              if (auto fork = load_fork(project, p.string("name")); fork && *fork)
                return discard_fork(project, p.string("name"), force, trash);
            auto d = BERTH_TRY(std::move(discarded));
            // With no pool, no filler runs the light gc pass: one of its own when this discard
            // left expired trash (a filler does it otherwise).
            if (project.config().get_int("pool.size") <= 0)
              start_light_gc_after_discard(project, {d.workspace.name});
            Outcome out{d, d.warnings, {}, 0};
            // The snapshot keeps tracked and untracked work, never ignored files: say what went.
            if (!d.ignored_counted && d.ignored_present)
              out.notes.push_back(fmt::format("ignored files (build output) are not saved; `berth "
                                              "restore --list {}` shows how many went",
                                              d.workspace.name));
            else if (d.ignored_files > 0)
              out.warnings.push_back(fmt::format(
                  "{} ignored file(s), {}, were deleted with it (ignored files are not saved){}",
                  d.ignored_files, util::human_bytes(d.ignored_bytes),
                  d.setup_files > 0
                      ? fmt::format("; {} more set-up recreates (its copies)", d.setup_files)
                      : std::string()));
            else if (d.setup_files > 0)
              out.notes.push_back(fmt::format("{} ignored file(s) of its set-up (copies) "
                                              "went with it: set-up recreates them",
                                              d.setup_files));
            return out;
          }};
}

} // namespace berth::ops

#include "berth/json.hpp"
#include "core/git.hpp"
#include "core/operations/params.hpp"
#include "util/try.hpp"

#include <fmt/format.h>

namespace berth::ops {

StopAtSafePoints::StopAtSafePoints(const OperationContext& context)
    : stop_(context.stop_requested) {
  if (!stop_) return;
  own_group_ = std::make_unique<GitCallsOwnGroup>();
  (void)stop_(); // the first call arms the front end's signal watch
}

StopAtSafePoints::~StopAtSafePoints() = default;

std::string what_landed(const Accepted& a) {
  // A plain folder (docs/plain.md) is its own target: the change was written into it.
  if (!a.target_worktree.empty() && a.target == a.target_worktree)
    return fmt::format("the change is written into {}", a.target_worktree);
  return a.strategy == Strategy::apply
             ? fmt::format("the change is staged in {}", a.target_worktree)
             : fmt::format("the change landed on {} ({})", a.target, a.new_commit.substr(0, 12));
}

std::string landed_when_stopped(const Accepted& a, bool keep) {
  std::string done = what_landed(a);
  if (a.discarded)
    return fmt::format("interrupted too late to stop anything: {}, and workspace '{}' was "
                       "discarded",
                       done, a.name);
  if (keep)
    return fmt::format("interrupted too late to stop anything: {} (workspace '{}' is kept, as "
                       "--keep asked)",
                       done, a.name);
  return fmt::format("interrupted after the landing: {}; workspace '{}' was not discarded "
                     "(`berth discard {}` when you are done with it)",
                     done, a.name, a.name);
}

Entry accept_entry() {
  Operation op;
  op.name = "accept";
  op.summary = "land a workspace's change on your branch or in your checkout";
  Param strategy =
      string_param("strategy", "apply (stage in your checkout), merge, squash, ff or rebase", "s");
  strategy.choices = {"apply", "merge", "squash", "ff", "rebase"};
  op.params = {name_param(),
               strategy,
               string_param("into", "target branch (default: the branch of the main checkout)"),
               string_param("message", "commit message (merge, squash)", "m"),
               flag_param("dry_run", "say what would happen; change nothing", "n"),
               flag_param("keep", "keep the workspace after landing"),
               flag_param("allow_gitlink", "land nested repositories and unreachable submodule "
                                           "commits as gitlinks anyway"),
               flag_param("merge", "a plain folder: merge (three-way, text) files you changed in "
                                   "the folder that the workspace changed too, rather than "
                                   "refuse")};
  op.destructive = true;
  op.schema = "accept";
  return {op,
          [](const Project& project, const Params& p,
             const OperationContext& context) -> Result<Outcome> {
            // Ctrl-C, SIGTERM, SIGHUP: a request to stop at a safe point, never a git killed
            // half-way through the checkout (docs/crashes.md, "Ctrl-C is not a crash").
            StopAtSafePoints stop(context);
            AcceptOptions options;
            options.stop_requested = stop.requested();
            if (auto s = p.optional_string("strategy")) options.strategy = parse_strategy(*s);
            options.into = p.optional_string("into");
            options.message = p.optional_string("message");
            options.dry_run = p.flag("dry_run");
            options.keep = p.flag("keep");
            options.allow_gitlink = p.flag("allow_gitlink");
            options.merge = p.flag("merge");
            options.on_hook_output = context.on_hook_output;
            auto a = BERTH_TRY(accept_workspace(project, p.string("name"), options));
            if (stop.asked()) {
              if (a.dry_run || a.empty || !a.conflicts.empty())
                return fail(ErrorCode::stopped, "interrupted: nothing was changed");
              return Outcome{a, {landed_when_stopped(a, options.keep)}, {}, 130};
            }
            // It does not merge: a result naming the paths, exit 3 (conflict, nothing changed).
            if (!a.conflicts.empty())
              return Outcome{a, {a.hint}, {}, exit_status(ErrorCode::conflict)};
            // Nothing landed: its warnings (about what would have landed) say nothing.
            return Outcome{a, a.empty ? std::vector<std::string>{} : a.warnings, {}, 0};
          }};
}

} // namespace berth::ops

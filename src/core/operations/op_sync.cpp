#include "berth/json.hpp"
#include "core/operations/params.hpp"
#include "util/try.hpp"

#include <fmt/format.h>

namespace berth::ops {

Entry sync_entry() {
  Operation op;
  op.name = "sync";
  op.summary = "bring the target branch's new commits into a workspace";
  op.params = {name_param(),
               string_param("onto", "what to bring in (default: the main checkout's branch)"),
               flag_param("rebase", "rebase the workspace's commits instead of merging"),
               flag_param("abort", "undo a sync that stopped on conflicts: files, index, HEAD "
                                   "and branch as before it")};
  op.schema = "sync";
  return {
      op, [](const Project& project, const Params& p, const OperationContext&) -> Result<Outcome> {
        if (p.flag("abort")) {
          if (p.has("onto") || p.flag("rebase"))
            return fail(ErrorCode::usage, "sync --abort takes no --onto or --rebase",
                        "run `berth sync NAME --abort` alone");
          auto undone = BERTH_TRY(abort_sync(project, p.string("name")));
          return Outcome{undone, {}, {}, 0};
        }
        bool rebase = p.flag("rebase");
        auto s = BERTH_TRY(sync_workspace(project, p.string("name"), p.optional_string("onto"),
                                          rebase ? SyncMode::rebase : SyncMode::merge));
        // Conflicts left in the workspace for the agent: a result naming them, exit 3.
        if (!s.conflicts.empty()) {
          s.hint = fmt::format(
              "sync left {} conflicted file(s) in workspace '{}': {}; or `berth sync {} --abort` "
              "to undo it",
              s.conflicts.size(), s.name,
              rebase ? "resolve them there, then `git rebase --continue`"
                     : "resolve them there and commit (git add + git commit), then accept",
              s.name);
          return Outcome{s, {s.hint}, {}, exit_status(ErrorCode::conflict)};
        }
        return Outcome{s, {}, {}, 0};
      }};
}

} // namespace berth::ops

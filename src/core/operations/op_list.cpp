#include "berth/json.hpp"
#include "core/operations/params.hpp"
#include "util/try.hpp"

#include <fmt/format.h>

namespace berth::ops {

Entry list_entry() {
  Operation op;
  op.name = "list";
  op.summary = "list the workspaces: state, base, commits ahead, changes, owner";
  op.params = {flag_param("all", "wide format: add branch, head and created columns", "a"),
               flag_param("overlaps", "also show which workspaces change the same files, and "
                                      "which would conflict"),
               flag_param("wide", "on a terminal, do not shorten the table to its width (the "
                                  "path column in full)")};
  op.read_only = true;
  op.idempotent = true;
  op.schema = "list";
  return {op,
          [](const Project& project, const Params& p, const OperationContext&) -> Result<Outcome> {
            auto all = BERTH_TRY(list_workspaces(project));
            Outcome out;
            for (const auto& s : all)
              if (!s.problem.empty())
                out.warnings.push_back(fmt::format("workspace '{}': {}; `berth doctor --repair` "
                                                   "moves it aside (`berth discard {}` too)",
                                                   s.workspace.name, s.problem, s.workspace.name));
            // With no workspace there is nothing to overlap: the plain list, as without it.
            if (p.flag("overlaps") && !all.empty()) {
              auto overlaps = BERTH_TRY(find_overlaps(project));
              out.document = list_document(all, &overlaps);
            } else {
              out.document = list_document(all);
            }
            return out;
          }};
}

} // namespace berth::ops

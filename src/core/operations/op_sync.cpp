#include "berth/json.hpp"
#include "core/operations/params.hpp"
#include "util/try.hpp"

namespace berth::ops {

Entry sync_entry() {
  Operation op;
  op.name = "sync";
  op.summary = "bring the target branch's new commits into a workspace";
  op.params = {name_param(),
               string_param("onto", "what to bring in (default: the main checkout's branch)"),
               flag_param("rebase", "rebase the workspace's commits instead of merging")};
  op.schema = "sync";
  return {
      op, [](const Project& project, const Params& p, const OperationContext&) -> Result<Outcome> {
        auto s = BERTH_TRY(sync_workspace(project, p.string("name"), p.optional_string("onto"),
                                          p.flag("rebase") ? SyncMode::rebase : SyncMode::merge));
        return Outcome{s, {}, {}, 0};
      }};
}

} // namespace berth::ops

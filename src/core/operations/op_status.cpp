#include "berth/json.hpp"
#include "core/operations/params.hpp"
#include "util/try.hpp"

namespace berth::ops {

Entry status_entry() {
  Operation op;
  op.name = "status";
  op.summary = "show one workspace in detail";
  op.params = {name_param()};
  op.read_only = true;
  op.idempotent = true;
  op.schema = "status";
  return {op,
          [](const Project& project, const Params& p, const OperationContext&) -> Result<Outcome> {
            auto s = BERTH_TRY(workspace_status(project, p.string("name")));
            return Outcome{s, {}, {}, 0};
          }};
}

} // namespace berth::ops

#include "berth/json.hpp"
#include "core/operations/params.hpp"
#include "util/try.hpp"

namespace berth::ops {

Entry path_entry() {
  Operation op;
  op.name = "path";
  op.summary = "print a workspace's path (cd \"$(berth path NAME)\")";
  op.params = {name_param()};
  op.read_only = true;
  op.idempotent = true;
  op.schema = "path";
  return {op,
          [](const Project& project, const Params& p, const OperationContext&) -> Result<Outcome> {
            auto w = BERTH_TRY(open_workspace(project, p.string("name")));
            return Outcome{path_document(w), {}, {}, 0};
          }};
}

} // namespace berth::ops

#include "berth/json.hpp"
#include "core/operations/params.hpp"

namespace berth::ops {

Entry config_entry() {
  Operation op;
  op.name = "config";
  op.summary = "show the effective configuration and where each value came from";
  op.read_only = true;
  op.idempotent = true;
  op.schema = "config";
  return {op,
          [](const Project& project, const Params&, const OperationContext&) -> Result<Outcome> {
            return Outcome{project.config(), {}, {}, 0};
          }};
}

} // namespace berth::ops

#include "berth/json.hpp"
#include "core/operations/params.hpp"
#include "util/try.hpp"

namespace berth::ops {

Entry doctor_entry() {
  Operation op;
  op.name = "doctor";
  op.summary = "check berth's records against git and the disk (--repair fixes)";
  op.params = {flag_param("repair", "finish or roll back interrupted accepts, remove leftovers")};
  op.schema = "doctor";
  // It lists interrupted accepts as `pending` (and --repair finishes them).
  op.reports_pending_accepts = true;
  return {op,
          [](const Project& project, const Params& p, const OperationContext&) -> Result<Outcome> {
            auto r = BERTH_TRY(doctor(project, p.flag("repair") ? Repair::yes : Repair::no));
            // 1 when something is wrong, so that scripts and CI can check with the status alone.
            return Outcome{r, {}, {}, r.problems.empty() ? 0 : 1};
          }};
}

} // namespace berth::ops

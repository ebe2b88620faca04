#include "berth/json.hpp"
#include "core/operations/params.hpp"
#include "util/try.hpp"

namespace berth::ops {

Entry commit_entry() {
  Operation op;
  op.name = "commit";
  op.summary = "record a workspace's uncommitted work as a commit on its branch";
  Param message = string_param("message", "the commit message", "m");
  message.required = true;
  op.params = {name_param(), message};
  op.schema = "commit";
  return {op,
          [](const Project& project, const Params& p, const OperationContext&) -> Result<Outcome> {
            auto c = BERTH_TRY(commit_workspace(project, p.string("name"), p.string("message")));
            return Outcome{c, {}, {}, 0};
          }};
}

} // namespace berth::ops

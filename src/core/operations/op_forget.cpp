#include "berth/json.hpp"
#include "core/operations/params.hpp"
#include "util/try.hpp"

namespace berth::ops {

// Plain folders only (docs/plain.md): berth's private repository of the folder goes once nothing
// of berth's is left in it. The folder itself is never touched.
Entry forget_entry() {
  Operation op;
  op.name = "forget";
  op.summary = "remove berth's private repository of a plain folder (none of its workspaces left)";
  op.params = {flag_param("force", "forget its trash snapshots too (they cannot be restored "
                                   "afterwards)")};
  op.destructive = true;
  op.schema = "forget";
  return {op,
          [](const Project& project, const Params& p, const OperationContext&) -> Result<Outcome> {
            auto f = BERTH_TRY(forget_plain(project, p.flag("force") ? Force::yes : Force::no));
            return Outcome{
                nlohmann::json{{"folder", f.folder}, {"repository", f.repository}}, {}, {}, 0};
          }};
}

} // namespace berth::ops

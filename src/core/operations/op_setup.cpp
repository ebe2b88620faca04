#include "berth/json.hpp"
#include "core/operations/params.hpp"
#include "util/try.hpp"

#include <fmt/format.h>

namespace berth::ops {

std::string setup_failed_warning(const Workspace& w, std::string_view done) {
  return fmt::format("workspace {} was {}, but its set-up failed: {} (exit status {}); fix the "
                     "cause, then run `berth setup {}` to run it again",
                     w.name, done, w.setup_error, kSetupFailedExit, w.name);
}

Outcome setup_outcome(const Created& created, std::string_view done) {
  Outcome out{created, created.warnings, {}, 0};
  for (const auto& w : created.setup.warnings)
    out.warnings.push_back(w);
  if (created.setup.failed) {
    out.warnings.push_back(setup_failed_warning(created.workspace, done));
    out.exit = kSetupFailedExit;
  }
  return out;
}

Entry setup_entry() {
  Operation op;
  op.name = "setup";
  op.summary = "run a workspace's set-up again (copies, clones, links, setup commands)";
  op.params = {name_param()};
  op.schema = "new";
  return {op,
          [](const Project& project, const Params& p,
             const OperationContext& context) -> Result<Outcome> {
            auto again = BERTH_TRY(set_up_again(project, p.string("name"), context.on_setup));
            return setup_outcome(again, "set up again");
          }};
}

} // namespace berth::ops

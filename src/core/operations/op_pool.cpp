#include "berth/json.hpp"
#include "core/operations/params.hpp"
#include "util/try.hpp"

#include <fmt/format.h>

namespace berth::ops {

Entry pool_entry() {
  Operation op;
  op.name = "pool";
  op.summary = "the warm pool of ready worktrees: status, fill [N], drain";
  Param action_p = string_param("action", "status (default), fill [N] or drain");
  action_p.positional = true;
  action_p.choices = {"status", "fill", "drain"};
  Param count_p = string_param("count", "with fill: how many ready slots (default: pool.size)");
  count_p.kind = ParamKind::integer;
  count_p.positional = true;
  Param background = flag_param("background", "(internal) the detached low-priority filler");
  background.internal = true;
  op.params = {action_p, count_p, background};
  op.schema = "pool";
  return {
      op, [](const Project& project, const Params& p, const OperationContext&) -> Result<Outcome> {
        std::string action = p.optional_string("action").value_or("status");
        auto count = p.optional_integer("count");
        PoolStatus s;
        if (action == "fill" && p.flag("background"))
          s = BERTH_TRY(pool_fill_background(project));
        else if (action == "fill" && count && (*count < 0 || *count > kMaxPoolSize))
          return fail(
              ErrorCode::usage,
              fmt::format("pool fill {}: the count must be from 0 to {}", *count, kMaxPoolSize),
              "run `berth pool fill N` with N ready slots wanted");
        else if (action == "fill")
          s = BERTH_TRY(pool_fill(project, count.value_or(project.config().get_int("pool.size"))));
        else if (action == "drain")
          s = BERTH_TRY(pool_drain(project));
        else
          s = BERTH_TRY(pool_status(project));
        return Outcome{s, {}, {}, 0};
      }};
}

} // namespace berth::ops

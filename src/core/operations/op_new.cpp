#include "berth/json.hpp"
#include "core/operations/params.hpp"
#include "util/try.hpp"

#include <fmt/format.h>

namespace berth::ops {

Entry new_entry() {
  Operation op;
  op.name = "new";
  op.summary = "create a workspace and print its path";
  op.params = {name_param(),
               string_param("base", "commit to start from (default: HEAD of this worktree)"),
               string_param("owner", "a label for who works there (agent, ticket, person)"),
               flag_param("no_pool", "skip the warm pool: a fresh worktree and full checkout"),
               flag_param("carry", "bring your uncommitted work (staged, unstaged, untracked) "
                                   "along; your checkout is untouched"),
               flag_param("plain", "treat this folder as a plain folder (a private repository "
                                   "outside it) even inside a git repository")};
  op.schema = "new";
  return {op,
          [](const Project& project, const Params& p,
             const OperationContext& context) -> Result<Outcome> {
            NewOptions options;
            options.name = p.string("name");
            options.base = p.optional_string("base");
            options.owner = p.string("owner");
            options.carry = p.flag("carry");
            options.no_pool = p.flag("no_pool");
            options.on_setup = context.on_setup;
            return setup_outcome(BERTH_TRY(create_workspace(project, options)), "created");
          }};
}

} // namespace berth::ops

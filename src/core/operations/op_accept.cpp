#include "berth/json.hpp"
#include "core/operations/params.hpp"
#include "util/try.hpp"

namespace berth::ops {

Entry accept_entry() {
  Operation op;
  op.name = "accept";
  op.summary = "land a workspace's change on your branch or in your checkout";
  Param strategy =
      string_param("strategy", "apply (stage in your checkout), merge, squash, ff or rebase", "s");
  strategy.choices = {"apply", "merge", "squash", "ff", "rebase"};
  op.params = {name_param(),
               strategy,
               string_param("into", "target branch (default: the branch of the main checkout)"),
               string_param("message", "commit message (merge, squash)", "m"),
               flag_param("dry_run", "say what would happen; change nothing", "n"),
               flag_param("keep", "keep the workspace after landing"),
               flag_param("allow_gitlink", "land nested repositories and unreachable submodule "
                                           "commits as gitlinks anyway"),
               flag_param("merge", "a plain folder: merge (three-way, text) files you changed in "
                                   "the folder that the workspace changed too, rather than "
                                   "refuse")};
  op.destructive = true;
  op.schema = "accept";
  return {op,
          [](const Project& project, const Params& p, const OperationContext&) -> Result<Outcome> {
            AcceptOptions options;
            if (auto s = p.optional_string("strategy")) options.strategy = parse_strategy(*s);
            options.into = p.optional_string("into");
            options.message = p.optional_string("message");
            options.dry_run = p.flag("dry_run");
            options.keep = p.flag("keep");
            options.allow_gitlink = p.flag("allow_gitlink");
            options.merge = p.flag("merge");
            auto a = BERTH_TRY(accept_workspace(project, p.string("name"), options));
            // It does not merge: a result naming the paths, exit 3 (conflict, nothing changed).
            if (!a.conflicts.empty())
              return Outcome{a, {a.hint}, {}, exit_status(ErrorCode::conflict)};
            // Nothing landed: its warnings (about what would have landed) say nothing.
            return Outcome{a, a.empty ? std::vector<std::string>{} : a.warnings, {}, 0};
          }};
}

} // namespace berth::ops

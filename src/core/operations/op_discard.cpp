#include "berth/json.hpp"
#include "core/operations/params.hpp"
#include "util/human.hpp"
#include "util/try.hpp"

#include <fmt/format.h>

namespace berth::ops {

Entry discard_entry() {
  Operation op;
  op.name = "discard";
  op.summary = "remove a workspace, keeping a snapshot in the trash";
  op.params = {
      name_param(),
      flag_param("force", "discard even if busy, or with --no-trash even with unsaved work", "f"),
      flag_param("no_trash", "do not keep a snapshot (needs --force if there is unsaved work)")};
  op.destructive = true;
  op.schema = "discard";
  return {op,
          [](const Project& project, const Params& p, const OperationContext&) -> Result<Outcome> {
            auto d = BERTH_TRY(discard_workspace(project, p.string("name"),
                                                 p.flag("force") ? Force::yes : Force::no,
                                                 p.flag("no_trash") ? Trash::no : Trash::yes));
            Outcome out{d, d.warnings, {}, 0};
            // The snapshot keeps tracked and untracked work, never ignored files: say what went.
            if (!d.ignored_counted && d.ignored_present)
              out.notes.push_back(fmt::format("ignored files (build output) are not saved; `berth "
                                              "restore --list {}` shows how many went",
                                              d.workspace.name));
            else if (d.ignored_files > 0)
              out.warnings.push_back(fmt::format(
                  "{} ignored file(s), {}, were deleted with it (ignored files are not saved){}",
                  d.ignored_files, util::human_bytes(d.ignored_bytes),
                  d.setup_files > 0
                      ? fmt::format("; {} more set-up recreates (clones, links)", d.setup_files)
                      : std::string()));
            else if (d.setup_files > 0)
              out.notes.push_back(fmt::format("{} ignored file(s) of its set-up (clones, links) "
                                              "went with it: set-up recreates them",
                                              d.setup_files));
            return out;
          }};
}

} // namespace berth::ops

#include "berth/json.hpp"
#include "core/gc.hpp"
#include "core/name.hpp"
#include "core/operations/params.hpp"
#include "util/try.hpp"

#include <fmt/format.h>

namespace berth::ops {

Entry trash_entry() {
  Operation op;
  op.name = "trash";
  op.summary = "the snapshots of discarded workspaces: list [NAME], drop NAME[@TIME], purge";
  Param action_p = string_param("action", "list (default), drop NAME[@TIME] or purge");
  action_p.positional = true;
  action_p.choices = {"list", "drop", "purge"};
  Param target_p = string_param(
      "snapshot",
      "with drop: NAME (all its snapshots) or NAME@TIME; with list: only NAME's (or that one)");
  target_p.positional = true;
  op.params = {action_p, target_p,
               string_param("older_than", "with purge: drop the snapshots older than this (7d)"),
               flag_param("dry_run", "say what would be dropped, change nothing", "n")};
  op.destructive = true;
  op.schema = "trash";
  return {op,
          [](const Project& project, const Params& p, const OperationContext&) -> Result<Outcome> {
            std::string action = p.optional_string("action").value_or("list");
            std::string spec = p.string("snapshot");
            bool dry_run = p.flag("dry_run");
            auto older = p.optional_string("older_than");
            if (action == "purge" && !spec.empty())
              return fail(ErrorCode::usage, "trash purge takes no snapshot name",
                          "berth trash purge --older-than 30d, or berth trash drop NAME[@TIME]");
            if (action != "purge" && older)
              return fail(ErrorCode::usage, "--older-than goes with `trash purge`",
                          "berth trash purge --older-than 30d");
            TrashOutcome out;
            if (action == "drop") {
              if (spec.empty())
                return fail(ErrorCode::usage, "trash drop needs NAME or NAME@TIME",
                            "run `berth trash list` to see the snapshots");
              out = BERTH_TRY(trash_drop(project, spec, dry_run));
            } else if (action == "purge") {
              if (!older)
                return fail(ErrorCode::usage, "trash purge needs --older-than DURATION",
                            "berth trash purge --older-than 30d");
              int64_t seconds = BERTH_TRY(parse_duration(*older, "--older-than"));
              out = BERTH_TRY(trash_purge(project, seconds, dry_run));
            } else {
              // `trash list NAME` (or NAME@TIME): as `restore --list` takes it.
              out = TrashOutcome{"list", dry_run, BERTH_TRY(snapshots_for(project, spec)), {}};
            }
            for (const auto& s : out.snapshots)
              out.contents.push_back(snapshot_contents(project, s));
            return Outcome{trash_document(out), {}, {}, 0};
          }};
}

} // namespace berth::ops

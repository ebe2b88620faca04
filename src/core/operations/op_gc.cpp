#include "berth/json.hpp"
#include "core/gc.hpp"
#include "core/operations/params.hpp"
#include "util/try.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace berth::ops {

Entry gc_entry() {
  Operation op;
  op.name = "gc";
  op.summary = "remove what is safe to remove: landed, idle and orphaned workspaces, old trash";
  Param keep = string_param("keep", "snapshots kept per name in the trash (default trash.keep)");
  keep.kind = ParamKind::integer;
  Param automatic = flag_param("auto", "(internal) the light pass after new and discard");
  automatic.internal = true;
  op.params = {flag_param("dry_run", "say what would be removed, change nothing", "n"),
               string_param("older_than",
                            "a workspace with no change is idle once unused this long (default "
                            "gc.older_than, e.g. 7d)"),
               keep,
               string_param("into", "the branch a landed workspace's change is in (default: the "
                                    "main checkout's branch)"),
               automatic};
  op.destructive = true;
  op.schema = "gc";
  return {op,
          [](const Project& project, const Params& p, const OperationContext&) -> Result<Outcome> {
            GcOptions options;
            options.dry_run = p.flag("dry_run");
            options.automatic = p.flag("auto");
            options.into = p.optional_string("into");
            if (auto text = p.optional_string("older_than"))
              options.older_than = BERTH_TRY(parse_duration(*text, "--older-than"));
            if (auto keep_n = p.optional_integer("keep")) {
              if (*keep_n < 0)
                return fail(ErrorCode::usage, fmt::format("--keep {}: must be 0 or more", *keep_n),
                            "give how many snapshots of each name to keep, e.g. --keep 3");
              options.keep = *keep_n;
            }
            // The automatic pass is off with gc.auto = false (it is started whatever the value,
            // so that the caller never reads more config than it must).
            if (options.automatic && !project.config().get_bool("gc.auto"))
              return Outcome{GcReport{}, {}, {}, 0};
            // The pass a discard started on its own (no pool): a good neighbour, as the filler.
            if (options.automatic) {
              (void)::setpriority(PRIO_PROCESS, 0, 19);
              constexpr int kIoprioClassIdle = 3, kIoprioClassShift = 13, kIoprioWhoProcess = 1;
              (void)::syscall(SYS_ioprio_set, kIoprioWhoProcess, 0,
                              kIoprioClassIdle << kIoprioClassShift);
            }
            auto report = BERTH_TRY(collect_garbage(project, options));
            return Outcome{report, report.warnings, {}, 0};
          }};
}

} // namespace berth::ops

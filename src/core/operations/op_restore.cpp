#include "berth/json.hpp"
#include "core/operations/params.hpp"
#include "util/try.hpp"

#include <fmt/format.h>

namespace berth::ops {

Entry restore_entry() {
  Operation op;
  op.name = "restore";
  op.summary = "bring a discarded workspace back from the trash";
  Param name_p = name_param("workspace name (with --list: optional filter)");
  name_p.required = false; // --list needs none; restoring does (checked below)
  op.params = {name_p, string_param("as", "restore under another name"),
               string_param("from", "restore from this snapshot ref (one `restore --list` shows) "
                                    "instead of the newest"),
               flag_param("list", "list the snapshots in the trash instead", "l")};
  op.schema = "restore";
  op.schema_variants = {{"list", "restore-list"}};
  return {op,
          [](const Project& project, const Params& p, const OperationContext&) -> Result<Outcome> {
            std::string name = p.string("name");
            if (p.flag("list")) {
              std::optional<std::string_view> filter;
              if (!name.empty()) filter = name;
              auto snaps = BERTH_TRY(list_snapshots(project, filter));
              Outcome out{snaps, {}, {}, 0};
              // A snapshot that cannot be restored says why (berth doctor reports it too).
              for (const auto& s : snaps)
                if (s.state != "ok")
                  out.warnings.push_back(fmt::format("{}: {}: {}", s.ref, s.state, s.problem));
              return out;
            }
            if (name.empty())
              return fail(ErrorCode::usage, "restore needs a workspace name",
                          "berth restore NAME, or berth restore --list");
            auto r = BERTH_TRY(restore_workspace(project, name, p.optional_string("as"),
                                                 p.optional_string("from")));
            return Outcome{r, r.warnings, {}, 0};
          }};
}

} // namespace berth::ops

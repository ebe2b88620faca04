#include "berth/json.hpp"
#include "core/gc.hpp"
#include "core/operations/params.hpp"
#include "util/try.hpp"

#include <fmt/format.h>

namespace berth::ops {

Entry restore_entry() {
  Operation op;
  op.name = "restore";
  op.summary = "bring a discarded workspace back from the trash";
  Param name_p = name_param("workspace name, NAME@TIME or a snapshot's ref (with --list: optional "
                            "filter)");
  name_p.required = false; // --list needs none; restoring does (checked below)
  op.params = {name_p, string_param("as", "restore under another name"),
               string_param("from", "restore from this snapshot ref (one `restore --list` shows) "
                                    "instead of the newest"),
               flag_param("list", "list the snapshots in the trash instead", "l")};
  op.schema = "restore";
  op.schema_variants = {{"list", "restore-list"}};
  return {op,
          [](const Project& project, const Params& p,
             const OperationContext& context) -> Result<Outcome> {
            std::string name = p.string("name");
            if (p.flag("list")) {
              // All, NAME's, or the one NAME@TIME (or a ref) names: as `trash list` takes it.
              auto snaps = BERTH_TRY(snapshots_for(project, name));
              // What each holds beyond its base, and how big that is.
              nlohmann::json listed = nlohmann::json::array();
              for (const auto& s : snaps) {
                auto c = snapshot_contents(project, s);
                nlohmann::json j = s;
                j["holds"] = {{"commits", c.commits}, {"files", c.files}, {"bytes", c.bytes}};
                listed.push_back(std::move(j));
              }
              Outcome out{listed, {}, {}, 0};
              // A snapshot that cannot be restored says why (berth doctor reports it too).
              for (const auto& s : snaps)
                if (s.state != "ok")
                  out.warnings.push_back(fmt::format("{}: {}: {}", s.ref, s.state, s.problem));
              return out;
            }
            if (name.empty())
              return fail(ErrorCode::usage, "restore needs a workspace name",
                          "berth restore NAME, or berth restore --list");
            auto from = p.optional_string("from");
            // NAME@TIME, or a snapshot's full ref: that snapshot, not the newest.
            if (name.find('@') != std::string::npos || name.rfind("refs/", 0) == 0) {
              if (from)
                return fail(ErrorCode::usage, "give NAME@TIME or --from REF, not both",
                            fmt::format("berth restore {}", name));
              std::string ref = BERTH_TRY(snapshot_ref_of(name));
              if (name.rfind("refs/", 0) == 0) {
                std::string found;
                for (const auto& s : BERTH_TRY(list_snapshots(project, std::nullopt)))
                  if (s.ref == ref) found = s.name;
                if (found.empty())
                  return fail(ErrorCode::not_found, fmt::format("no snapshot {} in the trash", ref),
                              "run `berth restore --list` to see what can be restored");
                name = found;
              } else {
                name = name.substr(0, name.rfind('@'));
              }
              from = ref;
            }
            auto r = BERTH_TRY(
                restore_workspace(project, name, p.optional_string("as"), from, context.on_setup));
            return Outcome{r, r.warnings, {}, 0};
          }};
}

} // namespace berth::ops

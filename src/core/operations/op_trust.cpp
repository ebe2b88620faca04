#include "berth/json.hpp"
#include "core/operations/params.hpp"
#include "util/try.hpp"

namespace berth::ops {

Entry trust_entry() {
  Operation op;
  op.name = "trust";
  op.summary = "trust this repository's setup commands (--list, --revoke)";
  op.params = {flag_param("list", "list every project whose setup commands you trusted"),
               flag_param("revoke", "forget your trust in this project's setup commands")};
  op.idempotent = true;
  op.schema = "trust";
  op.schema_variants = {{"list", "trust-list"}};
  return {op,
          [](const Project& project, const Params& p, const OperationContext&) -> Result<Outcome> {
            if (p.flag("list") && p.flag("revoke"))
              return fail(ErrorCode::usage, "--list and --revoke do not go together",
                          "berth trust --list, or berth trust --revoke");
            if (p.flag("list")) {
              auto trusted = BERTH_TRY(list_trust());
              return Outcome{trust_list_document(trusted), {}, {}, 0};
            }
            if (p.flag("revoke")) {
              auto s = BERTH_TRY(revoke_trust(project));
              return Outcome{revoke_document(s), {}, {}, 0};
            }
            // Trusting shows exactly what is trusted: the list a later `berth new` will run.
            auto s = BERTH_TRY(trust_project(project));
            return Outcome{s, {}, {}, 0};
          }};
}

} // namespace berth::ops

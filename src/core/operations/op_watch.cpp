#include "berth/json.hpp"
#include "core/operations/params.hpp"

#include <fmt/format.h>

namespace berth::ops {

Entry watch_entry() {
  Operation op;
  op.name = "watch";
  op.summary = "the watcher that keeps workspace queries fast: status, stop";
  Param action = string_param("action", "status (default) or stop");
  action.positional = true;
  action.choices = {"status", "stop"};
  op.params = {action};
  op.schema = "watch";
  return {op,
          [](const Project& project, const Params& p, const OperationContext&) -> Result<Outcome> {
            bool stop = p.string("action") == "stop";
            bool stopped = stop && watch_stop(project);
            WatchStatus s = watch_status(project);
            Outcome out{
                watch_document(s, stop ? std::optional<bool>(stopped) : std::nullopt), {}, {}, 0};
            if (s.blind > 0)
              out.warnings.push_back(fmt::format(
                  "{} work tree(s) have more folders than inotify lets it watch: they are looked "
                  "at in full; raise fs.inotify.max_user_watches (sysctl) to watch them",
                  s.blind));
            return out;
          }};
}

} // namespace berth::ops

#include "cli/commands.hpp"

#include <fmt/format.h>

namespace cli {

// One line per attempt: its workspace, and what its command did (when one ran).
std::string render_fork(const nlohmann::json& d, const RenderContext& context) {
  if (context.quiet) return {};
  const auto& fork = d["fork"];
  std::string text = fmt::format("forked {} into {} attempts from {}\n", str(fork, "task"),
                                 fork.value("attempts", 0), str(fork, "base").substr(0, 12));
  // How the commands were confined (compare --test confines its tests the same way).
  const auto env = fork.value("env", nlohmann::json::array());
  if (fork.value("sandbox", nlohmann::json()).is_string())
    text += fmt::format("sandboxed ({}{}{})\n", str(fork, "sandbox"),
                        fork.value("network", true) ? "" : ", network off",
                        env.empty() ? "" : fmt::format(", {} --env", env.size()));
  const auto& runs = fork["runs"];
  for (const auto& w : d["workspaces"]) {
    std::string line = fmt::format("  {}  {}", str(w, "name"), str(w, "path"));
    for (const auto& run : runs)
      if (run.value("name", std::string()) == str(w, "name")) {
        std::string state = str(run, "state");
        // Never started: no time, and no log to point at (none was written).
        if (state == "not_started") {
          line += "  not_started";
          continue;
        }
        if (state == "exited") state = fmt::format("exit {}", run["exit_code"].get<int>());
        line += fmt::format("  {} ({:.1f}s)  log: {}", state,
                            static_cast<double>(run.value("duration_ms", int64_t{0})) / 1000.0,
                            str(run, "log"));
      }
    text += line + "\n";
  }
  return text;
}

std::string render_pick(const nlohmann::json& d, const RenderContext& context) {
  const auto& a = d["accepted"];
  // A conflict is said even under --quiet, as accept says it: the paths, and that the siblings
  // stay.
  if (a["conflicts"].is_array() && !a["conflicts"].empty())
    return render_accept(a, context) + "its sibling attempts stay as they were\n";
  if (context.quiet) return {};
  std::string text = render_accept(a, context);
  for (const auto& gone : d["discarded"])
    if (gone["snapshot"].is_object())
      text += fmt::format("discarded {} (saved as {}; `berth restore {}` brings it back)\n",
                          str(gone["workspace"], "name"), str(gone["snapshot"], "ref"),
                          str(gone["workspace"], "name"));
    else
      text += fmt::format("discarded {}\n", str(gone["workspace"], "name"));
  return text;
}

} // namespace cli

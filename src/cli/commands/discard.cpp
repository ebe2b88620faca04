#include "cli/commands.hpp"

#include <fmt/format.h>

namespace cli {

std::string render_discard(const nlohmann::json& d, const RenderContext& context) {
  if (context.quiet) return {};
  // `discard TASK` of a fork: one line per attempt, then the record's fate.
  if (d.contains("task")) {
    std::string text;
    for (const auto& one : d["discarded"])
      text += render_discard(one, context);
    if (d.value("fork_removed", false)) text += fmt::format("fork {} removed\n", str(d, "task"));
    return text;
  }
  std::string name = str(d["workspace"], "name");
  std::string text = fmt::format("discarded {}", name);
  if (d["snapshot"].is_object())
    text += fmt::format(" (saved as {}; `berth restore {}` brings it back)",
                        str(d["snapshot"], "ref"), name);
  return text + "\n";
}

} // namespace cli

#include "cli/commands.hpp"
#include "cli/render.hpp"

#include <fmt/format.h>

namespace cli {

std::string render_trash(const nlohmann::json& document, const RenderContext& context) {
  std::string action = str(document, "action");
  const auto& snaps = document["snapshots"];
  if (action == "list") return snapshots_text(snaps, context, str(context.params, "snapshot"));
  if (snaps.empty()) return context.quiet ? std::string() : "nothing to drop\n";
  std::string text;
  bool dry = document.value("dry_run", false);
  for (const auto& s : snaps)
    text += fmt::format("{} {}\n", dry ? "would drop" : "dropped", str(s, "ref"));
  return text;
}

} // namespace cli

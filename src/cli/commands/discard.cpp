#include "cli/commands.hpp"

#include <fmt/format.h>

namespace cli {

std::string render_discard(const nlohmann::json& d, const RenderContext& context) {
  if (context.quiet) return {};
  std::string name = str(d["workspace"], "name");
  std::string text = fmt::format("discarded {}", name);
  if (d["snapshot"].is_object())
    text += fmt::format(" (saved as {}; `berth restore {}` brings it back)",
                        str(d["snapshot"], "ref"), name);
  return text + "\n";
}

} // namespace cli

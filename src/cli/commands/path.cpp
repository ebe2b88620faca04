#include "cli/commands.hpp"

namespace cli {

std::string render_path(const nlohmann::json& document, const RenderContext&) {
  return str(document, "path") + "\n";
}

} // namespace cli

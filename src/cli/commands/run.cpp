#include "cli/commands.hpp"

namespace cli {

// stdout belongs to the command (run and shell); berth's own notes go to stderr.
std::string render_run(const nlohmann::json&, const RenderContext&) {
  return {};
}

} // namespace cli

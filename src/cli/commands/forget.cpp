#include "cli/commands.hpp"
#include "cli/render.hpp"

#include <fmt/format.h>

namespace cli {

std::string render_forget(const nlohmann::json& document, const RenderContext& context) {
  if (context.quiet) return {};
  return fmt::format("removed berth's private repository of {} ({}); the folder is untouched\n",
                     str(document, "folder"), str(document, "repository"));
}

} // namespace cli

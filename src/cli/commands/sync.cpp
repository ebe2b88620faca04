#include "cli/commands.hpp"
#include "cli/render.hpp"

#include <fmt/format.h>

namespace cli {

std::string render_sync(const nlohmann::json& s, const RenderContext& context) {
  if (context.quiet) return {};
  return s.value("up_to_date", false)
             ? fmt::format("{} is up to date with {}\n", str(s, "name"), short_sha(str(s, "onto")))
             : fmt::format("{}: {} -> {}\n", str(s, "name"), short_sha(str(s, "old_head")),
                           short_sha(str(s, "new_head")));
}

} // namespace cli

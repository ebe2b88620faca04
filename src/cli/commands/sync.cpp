#include "cli/commands.hpp"
#include "cli/render.hpp"

#include <fmt/format.h>

namespace cli {

std::string render_sync(const nlohmann::json& s, const RenderContext& context) {
  // Conflicts: what is left to resolve, even with --quiet (the hint follows on stderr).
  if (!s["conflicts"].empty()) {
    std::string text =
        fmt::format("{}: {} conflicted file(s) after bringing in {}:\n", str(s, "name"),
                    s["conflicts"].size(), short_sha(str(s, "onto")));
    for (const auto& path : s["conflicts"])
      text += "  " + path.get<std::string>() + "\n";
    return text;
  }
  if (context.quiet) return {};
  if (s.value("aborted", false))
    return fmt::format("{}: sync undone; back at {}\n", str(s, "name"),
                       short_sha(str(s, "new_head")));
  return s.value("up_to_date", false)
             ? fmt::format("{} is up to date with {}\n", str(s, "name"), short_sha(str(s, "onto")))
             : fmt::format("{}: {} -> {}\n", str(s, "name"), short_sha(str(s, "old_head")),
                           short_sha(str(s, "new_head")));
}

} // namespace cli

#include "cli/commands.hpp"

#include <fmt/format.h>

namespace cli {

std::string render_integrate(const nlohmann::json& i, const RenderContext& context) {
  if (context.quiet) return {};
  std::string settings = str(i, "settings"), action = str(i, "action");
  std::string backup =
      str(i, "backup").empty() ? "" : fmt::format(" (previous content: {})", str(i, "backup"));
  if (action == "added")
    return fmt::format("berth is now Claude Code's worktree provider in {}{}\n", settings, backup);
  if (action == "removed")
    return fmt::format("removed berth's hooks from {}{}\n", settings, backup);
  if (context.params.value("remove", false))
    return fmt::format("nothing to do: {} has no berth hooks\n", settings);
  return fmt::format("nothing to do: berth's hooks are already in {}\n", settings);
}

} // namespace cli

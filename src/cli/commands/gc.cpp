#include "cli/commands.hpp"
#include "cli/render.hpp"

#include <fmt/format.h>

namespace cli {
namespace {

// "landed  workspace  feat  its commits are in main" — one line per item.
std::string item_line(const nlohmann::json& item) {
  std::string what = str(item, "name");
  if (what.empty()) what = str(item, "path");
  if (str(item, "kind") == "snapshot") what = str(item, "ref");
  // The watcher's state of a tree moved away: known by its folder's identity only.
  if (what.empty()) what = "(moved away)";
  return fmt::format("{:<8} {:<9} {}: {}\n", str(item, "category"), str(item, "kind"), what,
                     str(item, "reason"));
}

} // namespace

std::string render_gc(const nlohmann::json& document, const RenderContext& context) {
  std::string text;
  bool dry = document.value("dry_run", false);
  for (const auto& item : document["removed"])
    text += (dry ? "would remove " : "removed ") + item_line(item);
  if (!context.quiet)
    for (const auto& item : document["skipped"])
      text += "skipped " + item_line(item);
  if (text.empty() && !context.quiet) text = "nothing to remove\n";
  return text;
}

} // namespace cli

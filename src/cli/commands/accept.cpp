#include "cli/commands.hpp"
#include "cli/render.hpp"

#include <fmt/format.h>

namespace cli {

std::string render_accept(const nlohmann::json& a, const RenderContext& context) {
  std::string name = str(a, "name"), target = str(a, "target"),
              worktree = str(a, "target_worktree"), strategy = str(a, "strategy");
  const auto& files = a["files"];
  if (a.contains("conflicts") && !a["conflicts"].empty()) {
    std::string text = fmt::format("'{}' does not merge into {}; nothing was changed. "
                                   "Conflicting:\n",
                                   name, target);
    for (const auto& path : a["conflicts"])
      text += "  " + path.get<std::string>() + "\n";
    return text;
  }
  if (a.value("empty", false))
    return fmt::format("nothing to accept: workspace '{}' has no change for {}\n", name, target);
  // A plain folder (docs/plain.md) is both the target and its work tree: the change is written
  // into it, with no branch and nothing staged.
  bool plain = !worktree.empty() && target == worktree;
  std::string where = worktree.empty() || plain ? target : fmt::format("{} ({})", target, worktree);
  if (a.value("dry_run", false))
    return fmt::format("would {} {} file(s) of '{}' into {}:\n",
                       plain ? "write" : (strategy == "apply" ? "stage" : "land"), files.size(),
                       name, where) +
           stat_text(files);
  if (context.quiet) return {};
  std::string text;
  if (plain)
    text = fmt::format("wrote {} file(s) of '{}' into {}\n", files.size(), name, target);
  else if (strategy == "apply")
    text = fmt::format(
        "staged {} file(s) of '{}' in {}; review with `git diff --cached`, then commit\n",
        files.size(), name, worktree);
  else
    text = fmt::format("{} {} -> {}: {} file(s) of '{}' landed ({})\n", target,
                       short_sha(str(a, "old_commit")), short_sha(str(a, "new_commit")),
                       files.size(), name, strategy);
  const auto& discarded = a["discarded"];
  if (discarded.is_object() && discarded["snapshot"].is_object())
    text += fmt::format("workspace '{}' discarded (saved as {})\n", name,
                        str(discarded["snapshot"], "ref"));
  return text;
}

} // namespace cli

#include "cli/commands.hpp"

namespace cli {

// Claude Code takes the last line of a WorktreeCreate hook's stdout as the worktree's path: it
// is the only thing printed there (news goes to stderr). WorktreeRemove prints nothing.
std::string render_hook(const nlohmann::json& w, const RenderContext&) {
  if (str(w, "event") == "WorktreeCreate") return str(w, "path") + "\n";
  return {};
}

} // namespace cli

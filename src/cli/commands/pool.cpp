#include "cli/commands.hpp"
#include "cli/render.hpp"

#include <ctime>
#include <fmt/format.h>

namespace cli {

std::string render_pool(const nlohmann::json& s, const RenderContext& context) {
  if (context.quiet) return {};
  std::string text =
      fmt::format("pool: {} ready of {} (pool.size) in {}\n", s.value("ready", int64_t{0}),
                  s.value("size", int64_t{0}), str(s, "dir"));
  int64_t now = static_cast<int64_t>(::time(nullptr));
  for (const auto& slot : s["slots"])
    text += fmt::format("  {}  {}  {}  {} old\n", str(slot, "id"), str(slot, "state"),
                        short_sha(str(slot, "commit")), age(unix_time(str(slot, "created")), now));
  if (int64_t trash = s.value("trash", int64_t{0}); trash > 0)
    text += fmt::format("{} discarded tree(s) waiting to be deleted\n", trash);
  return text;
}

} // namespace cli

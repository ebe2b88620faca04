#include "cli/commands.hpp"
#include "cli/render.hpp"

#include <fmt/format.h>

namespace cli {

std::string render_commit(const nlohmann::json& c, const RenderContext& context) {
  if (context.quiet) return {};
  std::string commit = str(c, "commit");
  return commit.empty() ? fmt::format("nothing to commit in {}\n", str(c, "name"))
                        : fmt::format("committed {} file(s) in {} as {}\n", c["files"].size(),
                                      str(c, "name"), short_sha(commit));
}

} // namespace cli

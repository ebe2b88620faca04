#include "cli/commands.hpp"
#include "cli/render.hpp"

#include <fmt/format.h>

namespace cli {

std::string render_trust(const nlohmann::json& s, const RenderContext& context) {
  if (context.params.value("list", false)) {
    std::string text;
    for (const auto& t : s["trusted"])
      text += fmt::format("{}  {}\n", short_sha(str(t, "hash")), str(t, "project"));
    return text;
  }
  if (context.params.value("revoke", false))
    return s.value("revoked", false)
               ? "this project's setup commands are no longer trusted\n"
               : "this project's setup commands were not trusted: nothing to revoke\n";
  std::string text = fmt::format("trusted these setup commands of {}:\n",
                                 str(s, "source").empty() ? ".berth.toml" : str(s, "source"));
  for (const auto& c : s["commands"])
    text += "  " + c.get<std::string>() + "\n";
  return text;
}

} // namespace cli

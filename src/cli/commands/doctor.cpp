#include "cli/commands.hpp"

namespace cli {

std::string render_doctor(const nlohmann::json& r, const RenderContext&) {
  std::string text;
  for (const auto& x : r["pending"])
    text += "pending: " + x.get<std::string>() + "\n";
  for (const auto& x : r["repaired"])
    text += "repaired: " + x.get<std::string>() + "\n";
  for (const auto& p : r["problems"]) {
    text += "problem: " + str(p, "message") + "\n";
    if (!str(p, "repair").empty()) text += "  fix: " + str(p, "repair") + "\n";
  }
  if (r["problems"].empty() && r["repaired"].empty()) text += "all good\n";
  return text;
}

} // namespace cli

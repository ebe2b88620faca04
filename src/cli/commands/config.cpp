#include "berth/config.hpp"

#include "cli/commands.hpp"
#include "cli/render.hpp"

namespace cli {
namespace {

// The value as the config layer spells it (a TOML array for a list), from its JSON form.
std::string shown_value(const nlohmann::json& value) {
  berth::ConfigValue v;
  if (value.is_string())
    v = value.get<std::string>();
  else if (value.is_boolean())
    v = value.get<bool>();
  else if (value.is_number_integer())
    v = value.get<int64_t>();
  else if (value.is_array())
    v = value.get<std::vector<std::string>>();
  else
    return value.dump();
  return berth::to_string(v);
}

} // namespace

std::string render_config(const nlohmann::json& c, const RenderContext& context) {
  std::vector<std::vector<std::string>> rows{{"KEY", "VALUE", "FROM"}};
  // In the order the keys are documented (the JSON object sorts them).
  for (const auto& key : berth::config_keys()) {
    if (!c.contains(key.name)) continue;
    const auto& entry = c[key.name];
    std::string from = str(entry, "source");
    if (from != "built-in") from += " (" + str(entry, "where") + ")";
    std::string shown = shown_value(entry["value"]);
    if (std::string(key.name) == "workspace_root" && shown.empty() && context.project)
      shown = "(default) " + context.project->workspace_root();
    rows.push_back({key.name, shown.empty() ? "\"\"" : shown, from});
  }
  return table(rows);
}

} // namespace cli

// Which renderer speaks for which operation.
#include "cli/commands.hpp"

#include <utility>

namespace cli {

Renderer find_renderer(std::string_view name) {
  static const std::pair<std::string_view, Renderer> renderers[] = {
      {"new", render_new},         {"list", render_list},
      {"path", render_path},       {"status", render_status},
      {"run", render_run},         {"shell", render_run},
      {"diff", render_diff},       {"compare", render_compare},
      {"commit", render_commit},   {"accept", render_accept},
      {"sync", render_sync},       {"discard", render_discard},
      {"restore", render_restore}, {"pool", render_pool},
      {"watch", render_watch},     {"doctor", render_doctor},
      {"config", render_config},   {"trust", render_trust},
      {"hook", render_hook},       {"integrate", render_integrate},
      {"setup", render_setup},     {"fork", render_fork},
      {"pick", render_pick},       {"gc", render_gc},
      {"trash", render_trash},     {"forget", render_forget},
  };
  for (const auto& [op, renderer] : renderers)
    if (op == name) return renderer;
  return nullptr;
}

bool pages_output(std::string_view name) {
  return name == "diff";
}

std::string str(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return {};
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

} // namespace cli

// Bundling a published schema for MCP: see schemas.hpp.
#include "mcp/schemas.hpp"

#include <set>
#include <stdexcept>

namespace mcp {
namespace {

constexpr std::string_view kDefsRef = "defs.json#/$defs/";
constexpr std::string_view kLocalRef = "#/$defs/";

nlohmann::json load(const std::string& file) {
  const auto& all = embedded_schemas();
  auto it = all.find(file);
  if (it == all.end()) throw std::out_of_range("no embedded schema " + file);
  return nlohmann::json::parse(it->second);
}

// Rewrite the references in `node` and note each shared definition it names.
void rewrite(nlohmann::json& node, std::set<std::string>& wanted) {
  if (node.is_object()) {
    for (auto& [key, value] : node.items()) {
      if (key == "$ref" && value.is_string()) {
        std::string ref = value.get<std::string>();
        if (ref.rfind(kDefsRef, 0) == 0) {
          std::string def = ref.substr(kDefsRef.size());
          wanted.insert(def);
          value = std::string(kLocalRef) + def;
        } else if (ref.rfind(kLocalRef, 0) == 0) {
          wanted.insert(ref.substr(kLocalRef.size()));
        }
      } else {
        rewrite(value, wanted);
      }
    }
  } else if (node.is_array()) {
    for (auto& value : node)
      rewrite(value, wanted);
  }
}

} // namespace

nlohmann::json bundled_schema(const std::string& name, const std::string& wrap_key) {
  nlohmann::json schema = load(name + ".json");
  nlohmann::json defs = load("defs.json")["$defs"];
  schema.erase("$id");
  schema.erase("$schema");
  nlohmann::json own_defs = schema.value("$defs", nlohmann::json::object());
  schema.erase("$defs");
  std::set<std::string> wanted;
  rewrite(schema, wanted);
  for (auto& [key, value] : own_defs.items())
    rewrite(value, wanted);
  // Definitions refer to one another: copy until nothing new is reached.
  nlohmann::json bundle = own_defs;
  std::set<std::string> done;
  while (true) {
    std::set<std::string> next;
    for (const auto& def : wanted)
      if (!done.count(def) && !bundle.contains(def) && defs.contains(def)) next.insert(def);
    for (const auto& def : wanted)
      done.insert(def);
    if (next.empty()) break;
    for (const auto& def : next) {
      nlohmann::json copy = defs[def];
      rewrite(copy, wanted);
      bundle[def] = std::move(copy);
    }
  }
  // An object document whose root is a $ref or an allOf still says so at its root: MCP clients
  // look for `"type": "object"` there.
  if (!schema.contains("type")) schema["type"] = "object";
  if (schema["type"] != "object") {
    std::string title = schema.value("title", name);
    schema.erase("title");
    schema = {{"type", "object"},
              {"title", title},
              {"properties", {{wrap_key, schema}}},
              {"required", {wrap_key}},
              {"additionalProperties", false}};
  }
  if (!bundle.empty()) schema["$defs"] = bundle;
  return schema;
}

} // namespace mcp

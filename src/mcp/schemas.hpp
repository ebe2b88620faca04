// The published JSON Schemas (docs/schema/*.json), embedded at build time
// (cmake/embed_schemas.cmake), bundled into self-contained MCP output schemas.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace mcp {

/// File name ("run.json") to its text, as published.
const std::map<std::string_view, std::string_view>& embedded_schemas();

/// docs/schema/<name>.json made self-contained for an MCP `outputSchema`: every
/// `defs.json#/$defs/X` it reaches is copied into its own `$defs` (and the reference rewritten to
/// `#/$defs/X`); `$id` and `$schema` are dropped (2020-12 is MCP's default dialect, and a `$schema`
/// some validators do not know would make them refuse the tool). An array-rooted document is
/// wrapped as {"<wrap_key>": [...]}, since MCP output schemas are object-rooted.
/// Throws std::out_of_range for an unknown name.
nlohmann::json bundled_schema(const std::string& name, const std::string& wrap_key = "items");

} // namespace mcp

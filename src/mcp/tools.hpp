// berth's MCP tools: each is an entry of the operation table (include/berth/operations.hpp) seen
// by an agent (a title, a description written for a model, an input schema from the entry's
// parameters, the published JSON Schema of its document as output schema), or a confined file
// tool (src/core/confine.hpp). Nothing here re-implements a command.
#pragma once

#include "berth/berth.hpp"

#include <atomic>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace mcp {

struct ServerSettings {
  bool allow_accept = false;      ///< --allow-accept or mcp.allow_accept
  bool allow_unsandboxed = false; ///< --allow-unsandboxed
  bool sandbox_default = true;    ///< mcp.sandbox
};

/// What one tool call may use besides its arguments.
struct CallContext {
  const berth::Project& project;
  const ServerSettings& settings;
  /// Sends notifications/progress (progress, message) when the request had a progressToken;
  /// empty otherwise.
  std::function<void(double progress, const std::string& message)> progress;
  /// Set when the client cancelled the request (notifications/cancelled) or went away.
  std::shared_ptr<std::atomic<bool>> cancelled;
};

struct Tool {
  std::string name;
  nlohmann::json definition; ///< what tools/list shows
  std::function<nlohmann::json(const nlohmann::json& arguments, const CallContext&)> call;
};

/// The tools this server offers (workspace_accept only when allowed).
std::vector<Tool> make_tools(const ServerSettings& settings);

/// A CallToolResult for a failed call: isError, berth's error document as text.
nlohmann::json error_result(const berth::Error& error);

/// Cap `text` to about `cap` bytes, keeping its start and its end (a build log's failure is at
/// its end), with a marker between them saying how much was left out.
std::string cap_middle(const std::string& text, std::size_t cap);

/// Checks `arguments` against a tool's input schema as far as berth's schemas go (an object;
/// required keys; each known key's JSON type; enums; no unknown keys): "" when fine, else what
/// is wrong (the server answers -32602 Invalid params).
std::string check_arguments(const nlohmann::json& schema, const nlohmann::json& arguments);

} // namespace mcp

// JSON-RPC 2.0 framing for `berth mcp`: see protocol.hpp.
#include "mcp/protocol.hpp"

#include <algorithm>

namespace mcp {

const std::vector<std::string>& lifecycle_versions() {
  static const std::vector<std::string> versions{"2025-11-25", "2025-06-18", "2025-03-26"};
  return versions;
}

std::vector<std::string> supported_versions() {
  std::vector<std::string> all{std::string(kStatelessVersion)};
  for (const auto& v : lifecycle_versions())
    all.push_back(v);
  return all;
}

std::string negotiate_version(const nlohmann::json& requested) {
  const auto& versions = lifecycle_versions();
  if (requested.is_string() &&
      std::find(versions.begin(), versions.end(), requested.get<std::string>()) != versions.end())
    return requested.get<std::string>();
  return versions.front();
}

nlohmann::json result_reply(const nlohmann::json& id, nlohmann::json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

nlohmann::json error_reply(const nlohmann::json& id, int code, const std::string& message,
                           const nlohmann::json& data) {
  nlohmann::json error{{"code", code}, {"message", message}};
  if (!data.is_null()) error["data"] = data;
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}};
}

std::string frame(const nlohmann::json& message) {
  return message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

Message parse_message(std::string_view line) {
  Message m;
  nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_discarded()) {
    m.error_reply = error_reply(nullptr, kParseError, "Parse error: not valid JSON");
    return m;
  }
  if (j.is_array()) {
    m.error_reply = error_reply(nullptr, kInvalidRequest,
                                "Invalid Request: JSON-RPC batches are not supported (send one "
                                "message per line)");
    return m;
  }
  if (!j.is_object() || j.value("jsonrpc", nlohmann::json()) != "2.0") {
    m.error_reply =
        error_reply(nullptr, kInvalidRequest, "Invalid Request: not a JSON-RPC 2.0 object");
    return m;
  }
  bool has_id = j.contains("id");
  if (has_id) {
    const auto& id = j["id"];
    // MCP: an id is a string or an integer, never null.
    if (!id.is_string() && !id.is_number_integer()) {
      m.error_reply = error_reply(nullptr, kInvalidRequest,
                                  "Invalid Request: the id must be a string or an integer");
      return m;
    }
    m.id = id;
  }
  if (!j.contains("method")) {
    if (has_id && (j.contains("result") || j.contains("error"))) {
      m.kind = Message::Kind::response;
      return m;
    }
    m.error_reply = error_reply(has_id ? m.id : nlohmann::json(), kInvalidRequest,
                                "Invalid Request: no method");
    return m;
  }
  if (!j["method"].is_string()) {
    m.error_reply = error_reply(has_id ? m.id : nlohmann::json(), kInvalidRequest,
                                "Invalid Request: the method must be a string");
    return m;
  }
  m.method = j["method"].get<std::string>();
  if (j.contains("params")) {
    if (!j["params"].is_object()) {
      m.error_reply = error_reply(has_id ? m.id : nlohmann::json(), kInvalidParams,
                                  "Invalid params: params must be an object");
      return m;
    }
    m.params = j["params"];
  }
  m.kind = has_id ? Message::Kind::request : Message::Kind::notification;
  return m;
}

std::optional<std::string> request_version(const nlohmann::json& params) {
  if (!params.is_object() || !params.contains("_meta") || !params["_meta"].is_object())
    return std::nullopt;
  const auto& meta = params["_meta"];
  auto it = meta.find(std::string(kMetaProtocolVersion));
  if (it == meta.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::vector<LineReader::Line> LineReader::feed(std::string_view bytes) {
  std::vector<Line> lines;
  while (!bytes.empty()) {
    auto nl = bytes.find('\n');
    std::string_view piece = bytes.substr(0, nl);
    if (skipping_) {
      // Still inside an oversize line: drop bytes until its end.
    } else if (partial_.size() + piece.size() > limit_) {
      skipping_ = true;
      partial_.clear();
      partial_.shrink_to_fit();
    } else {
      partial_.append(piece);
    }
    if (nl == std::string_view::npos) break;
    bytes.remove_prefix(nl + 1);
    if (skipping_) {
      lines.push_back({{}, true});
      skipping_ = false;
    } else {
      if (!partial_.empty() && partial_.back() == '\r') partial_.pop_back();
      lines.push_back({std::move(partial_), false});
      partial_.clear();
    }
  }
  return lines;
}

std::optional<LineReader::Line> LineReader::finish() {
  if (skipping_) {
    skipping_ = false;
    return Line{{}, true};
  }
  if (partial_.empty()) return std::nullopt;
  Line line{std::move(partial_), false};
  partial_.clear();
  return line;
}

} // namespace mcp

// JSON-RPC 2.0 framing and MCP's protocol-level rules, as pure functions (tests/unit/test_mcp.cpp):
// one message per line, the error codes JSON-RPC names, version negotiation for both protocol
// generations (the 2025 `initialize` lifecycle and the stateless 2026-07-28 revision, whose
// requests carry their version and capabilities in `_meta`).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcp {

// JSON-RPC 2.0 error codes (jsonrpc.org/specification, section 5.1).
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;

/// A line longer than this is refused (kInvalidRequest) without being parsed or kept.
constexpr std::size_t kMaxMessageBytes = 8u << 20;

/// The stateless revision and the `_meta` keys its requests carry.
inline constexpr std::string_view kStatelessVersion = "2026-07-28";
inline constexpr std::string_view kMetaProtocolVersion = "io.modelcontextprotocol/protocolVersion";
inline constexpr std::string_view kMetaClientCapabilities =
    "io.modelcontextprotocol/clientCapabilities";

/// The `initialize` generation's versions, newest first.
const std::vector<std::string>& lifecycle_versions();
/// Every version served (for server/discover's supportedVersions), newest first.
std::vector<std::string> supported_versions();
/// initialize: the client's version when served, else the newest we serve.
std::string negotiate_version(const nlohmann::json& requested);

struct Message {
  enum class Kind { request, notification, response, invalid };
  Kind kind = Kind::invalid;
  nlohmann::json id; ///< request/response id (null for notifications and for the unparseable)
  std::string method;
  nlohmann::json params = nlohmann::json::object();
  /// For Kind::invalid: the error response to send (id null when it could not be read).
  nlohmann::json error_reply;
};

/// One line of input (without its newline). Malformed JSON: kParseError; a batch (array): refused
/// with kInvalidRequest (batches left MCP in 2025-06-18); not a JSON-RPC 2.0 object, a bad id, a
/// method that is not a string, params that are not an object: kInvalidRequest.
Message parse_message(std::string_view line);

nlohmann::json result_reply(const nlohmann::json& id, nlohmann::json result);
nlohmann::json error_reply(const nlohmann::json& id, int code, const std::string& message,
                           const nlohmann::json& data = nullptr);
/// One message as one line (newline added). Bytes that are not UTF-8 (a path in Latin-1) become
/// U+FFFD instead of an exception.
std::string frame(const nlohmann::json& message);

/// The stateless revision's version of a request (`_meta`'s protocolVersion), if it has one.
std::optional<std::string> request_version(const nlohmann::json& params);

/// Splits a byte stream into lines, refusing oversize ones without keeping them.
class LineReader {
public:
  struct Line {
    std::string text;
    bool oversize = false; ///< longer than kMaxMessageBytes; text is empty
  };
  /// Feed bytes; complete lines come out in order.
  std::vector<Line> feed(std::string_view bytes);
  /// At end of input: the last line when it had no newline.
  std::optional<Line> finish();

private:
  std::string partial_;
  bool skipping_ = false; ///< inside an oversize line, dropping until its newline
  std::size_t limit_ = kMaxMessageBytes;

public:
  explicit LineReader(std::size_t limit = kMaxMessageBytes) : limit_(limit) {}
};

} // namespace mcp

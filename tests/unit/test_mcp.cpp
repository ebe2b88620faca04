// berth mcp's pure pieces: JSON-RPC framing and errors, version negotiation, line splitting with
// the size cap, and the bundling of published schemas into self-contained output schemas.
#include "mcp/protocol.hpp"
#include "mcp/schemas.hpp"
#include "mcp/tools.hpp"

#include <functional>
#include <gtest/gtest.h>

namespace {

using mcp::Message;
using nlohmann::json;

int error_code(const Message& m) {
  return m.error_reply["error"]["code"].get<int>();
}

TEST(McpProtocol, ParsesRequestsAndNotifications) {
  auto r = mcp::parse_message(R"({"jsonrpc":"2.0","id":7,"method":"tools/list"})");
  EXPECT_EQ(r.kind, Message::Kind::request);
  EXPECT_EQ(r.id, 7);
  EXPECT_EQ(r.method, "tools/list");
  EXPECT_TRUE(r.params.is_object());
  auto n = mcp::parse_message(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  EXPECT_EQ(n.kind, Message::Kind::notification);
  auto s = mcp::parse_message(R"({"jsonrpc":"2.0","id":"a","result":{}})");
  EXPECT_EQ(s.kind, Message::Kind::response);
}

TEST(McpProtocol, MalformedInputGetsTheNamedCodes) {
  auto bad = mcp::parse_message("{not json");
  EXPECT_EQ(bad.kind, Message::Kind::invalid);
  EXPECT_EQ(error_code(bad), mcp::kParseError);
  EXPECT_TRUE(bad.error_reply["id"].is_null());
  EXPECT_EQ(error_code(mcp::parse_message(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])")),
            mcp::kInvalidRequest);
  EXPECT_EQ(error_code(mcp::parse_message(R"({"id":1,"method":"ping"})")), mcp::kInvalidRequest);
  EXPECT_EQ(error_code(mcp::parse_message(R"({"jsonrpc":"2.0","id":null,"method":"ping"})")),
            mcp::kInvalidRequest);
  EXPECT_EQ(error_code(mcp::parse_message(R"({"jsonrpc":"2.0","id":1,"method":3})")),
            mcp::kInvalidRequest);
  auto params = mcp::parse_message(R"({"jsonrpc":"2.0","id":4,"method":"ping","params":[1]})");
  EXPECT_EQ(error_code(params), mcp::kInvalidParams);
  EXPECT_EQ(params.error_reply["id"], 4); // the id could be read: the error names it
}

TEST(McpProtocol, VersionNegotiation) {
  EXPECT_EQ(mcp::negotiate_version("2025-06-18"), "2025-06-18");
  EXPECT_EQ(mcp::negotiate_version("2025-03-26"), "2025-03-26");
  EXPECT_EQ(mcp::negotiate_version("2024-11-05"), "2025-11-25");
  EXPECT_EQ(mcp::negotiate_version(json()), "2025-11-25");
  EXPECT_EQ(mcp::supported_versions().front(), "2026-07-28");
  json params = {{"_meta", {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"}}}};
  EXPECT_EQ(mcp::request_version(params), "2026-07-28");
  EXPECT_FALSE(mcp::request_version(json::object()));
}

TEST(McpProtocol, FramesOneLineEvenWithBadBytes) {
  std::string line = mcp::frame({{"path", std::string("caf\xe9\nx")}});
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  EXPECT_NE(line.find("\xef\xbf\xbd"), std::string::npos); // U+FFFD
}

TEST(McpProtocol, LineReaderSplitsAndCaps) {
  mcp::LineReader reader(10);
  auto lines = reader.feed("abc\r\nde");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].text, "abc");
  lines = reader.feed("f\n0123456789012345");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].text, "def");
  lines = reader.feed("6789\nok\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(lines[0].oversize);
  EXPECT_EQ(lines[1].text, "ok");
  EXPECT_FALSE(reader.finish());
  reader.feed("tail");
  auto last = reader.finish();
  ASSERT_TRUE(last);
  EXPECT_EQ(last->text, "tail");
}

// Every schema a tool serves is self-contained: no reference leaves it.
void expect_local_refs(const json& node, const json& defs) {
  if (node.is_object()) {
    for (const auto& [key, value] : node.items()) {
      if (key == "$ref") {
        std::string ref = value.get<std::string>();
        ASSERT_EQ(ref.rfind("#/$defs/", 0), 0u) << ref;
        EXPECT_TRUE(defs.contains(ref.substr(8))) << ref;
      } else {
        expect_local_refs(value, defs);
      }
    }
  } else if (node.is_array()) {
    for (const auto& v : node)
      expect_local_refs(v, defs);
  }
}

TEST(McpSchemas, BundledSchemasAreSelfContainedObjects) {
  for (const char* name :
       {"new", "list", "status", "diff", "commit", "sync", "discard", "restore", "accept", "run",
        "file-read", "file-write", "file-edit", "file-delete", "file-list"}) {
    SCOPED_TRACE(name);
    json s = mcp::bundled_schema(name, "workspaces");
    EXPECT_EQ(s["type"], "object");
    EXPECT_FALSE(s.contains("$id"));
    EXPECT_FALSE(s.contains("$schema"));
    expect_local_refs(s, s.value("$defs", json::object()));
  }
  json list = mcp::bundled_schema("list", "workspaces");
  EXPECT_EQ(list["properties"]["workspaces"]["type"], "array");
  EXPECT_EQ(list["required"], json::array({"workspaces"}));
  EXPECT_THROW(mcp::bundled_schema("no-such"), std::out_of_range);
}

TEST(McpTools, ArgumentsCheckedAgainstTheInputSchema) {
  json schema = {{"type", "object"},
                 {"properties",
                  {{"name", {{"type", "string"}}},
                   {"limit", {{"type", "integer"}, {"minimum", 0}}},
                   {"command", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                   {"strategy", {{"type", "string"}, {"enum", {"apply", "merge"}}}}}},
                 {"required", {"name"}}};
  EXPECT_EQ(mcp::check_arguments(schema, {{"name", "x"}}), "");
  EXPECT_EQ(mcp::check_arguments(schema, {{"name", "x"}, {"command", {"a", "b"}}}), "");
  EXPECT_NE(mcp::check_arguments(schema, json::object()).find("missing required argument 'name'"),
            std::string::npos);
  EXPECT_NE(mcp::check_arguments(schema, {{"name", 5}}).find("type string"), std::string::npos);
  EXPECT_NE(mcp::check_arguments(schema, {{"name", "x"}, {"extra", 1}}).find("unknown"),
            std::string::npos);
  EXPECT_NE(mcp::check_arguments(schema, {{"name", "x"}, {"limit", -1}}).find("at least"),
            std::string::npos);
  EXPECT_NE(mcp::check_arguments(schema, {{"name", "x"}, {"command", {"a", 1}}}), "");
  EXPECT_NE(mcp::check_arguments(schema, {{"name", "x"}, {"strategy", "nope"}}).find("one of"),
            std::string::npos);
  EXPECT_NE(mcp::check_arguments(schema, json::array()), "");
}

TEST(McpTools, CapKeepsStartAndEnd) {
  EXPECT_EQ(mcp::cap_middle("short", 100), "short");
  std::string capped = mcp::cap_middle(std::string(50, 'a') + std::string(50, 'b'), 20);
  EXPECT_EQ(capped.substr(0, 10), std::string(10, 'a'));
  EXPECT_EQ(capped.substr(capped.size() - 10), std::string(10, 'b'));
  EXPECT_NE(capped.find("80 bytes left out"), std::string::npos);
}

} // namespace

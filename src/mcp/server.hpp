// `berth mcp`: the MCP server on stdio (docs/mcp.md). One front end of the library: it prints
// only protocol messages on stdout and logs on stderr.
#pragma once

namespace mcp {

/// `berth mcp [-C DIR] [-c KEY=VALUE] [--allow-accept] [--allow-unsandboxed]`; argv[1] is "mcp".
int mcp_main(int argc, char** argv);

} // namespace mcp

# Shared set-up of the MCP tests (tests/mcp/t_*.sh): the behaviour tests' private world
# (tests/cli/common.sh: HOME, XDG dirs and TMPDIR inside one temp dir, removed at the end, no
# process left), node, and the SDK installed from tests/mcp/package-lock.json.
MCP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$MCP_DIR/../cli/common.sh"

command -v node >/dev/null ||
  skip "node is not installed, so the MCP tests cannot run (scripts/bootstrap installs Debian's nodejs and npm)"
if [[ ! -d $MCP_DIR/node_modules/@modelcontextprotocol/sdk ]]; then
  command -v npm >/dev/null ||
    skip "npm is not installed, so the MCP SDK cannot be installed (scripts/bootstrap does both)"
  # Pinned by the committed lockfile; into the source tree, where scripts/bootstrap puts it too.
  npm ci --prefix "$MCP_DIR" --no-audit --no-fund --loglevel=error >/dev/null ||
    skip "npm ci --prefix tests/mcp failed (no npm registry?): the MCP tests did not run"
fi

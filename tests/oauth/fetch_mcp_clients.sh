#!/usr/bin/env bash
# The third-party MCP OAuth clients the sign-in tests drive end to end, pinned:
# the TypeScript MCP SDK's client and mcp-remote (which bundles its own copy of the SDK).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$HERE/../../.cache"
# test workers may ask at once: one installs, the others wait and find it there
exec 9>"$HERE/../../.cache/.mcp-clients.lock"
flock 9
bash "$HERE/../fetch_npm_package.sh" npm-mcp-sdk @modelcontextprotocol/sdk 1.32.2 \
    dist/esm/client/auth.js
bash "$HERE/../fetch_npm_package.sh" npm-mcp-remote mcp-remote 0.15.1 dist/proxy.js

#!/usr/bin/env bash
# The third-party MCP OAuth clients the sign-in tests drive end to end, pinned:
# the TypeScript MCP SDK's client and mcp-remote (which bundles its own copy of the SDK).
set -euo pipefail
HERE="$(dirname "${BASH_SOURCE[0]}")"
bash "$HERE/../fetch_npm_package.sh" npm-mcp-sdk @modelcontextprotocol/sdk 1.32.2 \
    dist/esm/client/auth.js
bash "$HERE/../fetch_npm_package.sh" npm-mcp-remote mcp-remote 0.15.1 dist/proxy.js

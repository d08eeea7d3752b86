#!/usr/bin/env bash
# Installs GitHub's published OpenAPI description (the npm package @octokit/openapi) into
# .cache/openapi, for the forge's contract tests. Not committed: fetched when missing.
set -euo pipefail

OPENAPI_VERSION="23.0.2"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PREFIX="$ROOT/.cache/openapi"
SPEC="$PREFIX/node_modules/@octokit/openapi/generated/api.github.com.json"
INSTALLED="$PREFIX/node_modules/@octokit/openapi/package.json"

if [[ -f "$SPEC" && -f "$INSTALLED" ]] && grep -q "\"version\": \"$OPENAPI_VERSION\"" "$INSTALLED"; then
    exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "fetch_openapi.sh: npm is required to fetch @octokit/openapi@$OPENAPI_VERSION" >&2
    exit 1
fi
mkdir -p "$PREFIX"
npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$PREFIX" \
    "@octokit/openapi@$OPENAPI_VERSION" >&2
test -f "$SPEC"
echo "fetched $SPEC" >&2

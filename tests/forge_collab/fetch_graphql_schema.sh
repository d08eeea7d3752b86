#!/usr/bin/env bash
# Installs GitHub's public GraphQL schema (the npm package @octokit/graphql-schema) into
# .cache/graphql-schema, for the forge's GraphQL schema test. Not committed: fetched when missing.
set -euo pipefail

GRAPHQL_SCHEMA_VERSION="15.26.1"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PREFIX="$ROOT/.cache/graphql-schema"
SCHEMA="$PREFIX/node_modules/@octokit/graphql-schema/schema.graphql"
INSTALLED="$PREFIX/node_modules/@octokit/graphql-schema/package.json"

if [[ -f "$SCHEMA" && -f "$INSTALLED" ]] && grep -q "\"version\": \"$GRAPHQL_SCHEMA_VERSION\"" "$INSTALLED"; then
    exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "fetch_graphql_schema.sh: npm is required to fetch @octokit/graphql-schema@$GRAPHQL_SCHEMA_VERSION" >&2
    exit 1
fi
mkdir -p "$PREFIX"
npm install --no-save --no-audit --no-fund --loglevel=error --ignore-scripts --prefix "$PREFIX" \
    "@octokit/graphql-schema@$GRAPHQL_SCHEMA_VERSION" >&2
test -f "$SCHEMA"
echo "fetched $SCHEMA" >&2

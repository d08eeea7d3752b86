#!/usr/bin/env bash
# Installs one pinned npm package into .cache/<dir> when it is missing or at another version.
# Usage: fetch_npm_package.sh <cache dir name> <package> <version> <file inside the package>
# The GitHub API descriptions the contract tests use come this way; they are not committed.
set -euo pipefail

DIR="$1" PACKAGE="$2" VERSION="$3" FILE="$4"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX="$ROOT/.cache/$DIR"
TARGET="$PREFIX/node_modules/$PACKAGE/$FILE"
INSTALLED="$PREFIX/node_modules/$PACKAGE/package.json"

if [[ -f "$TARGET" && -f "$INSTALLED" ]] && grep -q "\"version\": \"$VERSION\"" "$INSTALLED"; then
    exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "fetch_npm_package.sh: npm is required to fetch $PACKAGE@$VERSION" >&2
    exit 1
fi
mkdir -p "$PREFIX"
npm install --no-save --no-audit --no-fund --loglevel=error --ignore-scripts --prefix "$PREFIX" \
    "$PACKAGE@$VERSION" >&2
test -f "$TARGET"
echo "fetched $TARGET" >&2

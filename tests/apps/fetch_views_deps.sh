#!/usr/bin/env bash
# Installs the cards' npm packages, exactly as views/package-lock.json pins them, into
# .cache/views-npm (only when the lock changed), and prints that node_modules folder.
# Scripts stay off: esbuild runs from its platform package without its postinstall.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PREFIX="$ROOT/.cache/views-npm"
mkdir -p "$ROOT/.cache"
# Test workers may ask at the same time: one installs, the others wait for it.
exec 9>"$ROOT/.cache/views-npm.lock"
flock 9
if ! cmp -s "$ROOT/views/package-lock.json" "$PREFIX/package-lock.json" \
    || [[ ! -d "$PREFIX/node_modules/@modelcontextprotocol/ext-apps" ]]; then
    if ! command -v npm >/dev/null 2>&1; then
        echo "fetch_views_deps.sh: npm is required to build the cards" >&2
        exit 1
    fi
    rm -rf "$PREFIX"
    mkdir -p "$PREFIX"
    cp "$ROOT/views/package.json" "$ROOT/views/package-lock.json" "$PREFIX/"
    (cd "$PREFIX" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
fi
echo "$PREFIX/node_modules"

#!/usr/bin/env bash
# GitHub's published OpenAPI description (@octokit/openapi), for the forge's contract tests.
exec bash "$(dirname "${BASH_SOURCE[0]}")/../fetch_npm_package.sh" \
    openapi @octokit/openapi 23.0.2 generated/api.github.com.json

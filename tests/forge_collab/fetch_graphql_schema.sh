#!/usr/bin/env bash
# GitHub's public GraphQL schema (@octokit/graphql-schema), for the forge's GraphQL schema test.
exec bash "$(dirname "${BASH_SOURCE[0]}")/../fetch_npm_package.sh" \
    graphql-schema @octokit/graphql-schema 15.26.1 schema.graphql

"""GitHub's published descriptions, held against the forge's own answers.

`openapi` checks a REST response against the response schema GitHub's OpenAPI description
gives its operation and status; `graphql_answers` checks a GraphQL answer against GitHub's
GraphQL schema; `monitor` runs both on every answer when the environment asks for it (the
test suite does) and writes what it found where the test run reads it. Nothing here
imports the rest of the forge.
"""

"""Every GraphQL operation the controller sends is valid against GitHub's public schema
(@octokit/graphql-schema, cached under .cache/ by `make test`) and against the forge's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from graphql import GraphQLSchema, build_schema, parse, validate

from github_mcp.github import graphql as queries
from sandbox_forge.graphql.endpoint import SCHEMA as FORGE_SCHEMA
from tests.forge_collab.test_graphql_schema import GRAPHQL_SCHEMA_VERSION, PACKAGE_DIR

OPERATION = ("query", "mutation")


def controller_operations() -> dict[str, str]:
    found = {
        name: value
        for name, value in vars(queries).items()
        if name.isupper() and isinstance(value, str) and value.lstrip().startswith(OPERATION)
    }
    for by in ("oid", "ref", "default"):
        for count in (1, 2, queries.MAX_FILES_PER_QUERY):
            found[f"files_query({count}, {by})"] = queries.files_query(count, by)
    return found


OPERATIONS = controller_operations()


@pytest.fixture(scope="module")
def github_schema() -> GraphQLSchema:
    schema_file = PACKAGE_DIR / "schema.graphql"
    if not schema_file.is_file():
        pytest.fail(f"GitHub's GraphQL schema is missing at {schema_file}: run make test")
    installed = json.loads((Path(PACKAGE_DIR) / "package.json").read_text())["version"]
    assert installed == GRAPHQL_SCHEMA_VERSION
    schema = build_schema(schema_file.read_text(), assume_valid_sdl=True)
    schema._validation_errors = []  # type: ignore[attr-defined]
    return schema


def test_the_controller_sends_the_operations_checked_here():
    assert {"REVIEW_THREADS", "RESOLVE_THREAD", "REPLY_TO_THREAD"} <= set(OPERATIONS)
    assert {"PULL_OVERVIEW", "PULL_FILES_PAGE"} <= set(OPERATIONS)
    assert any(name.startswith("files_query") for name in OPERATIONS)


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_operation_is_valid_on_github_and_on_the_forge(github_schema, name):
    document = parse(OPERATIONS[name])
    assert [e.message for e in validate(github_schema, document)] == []
    assert [e.message for e in validate(FORGE_SCHEMA, document)] == []

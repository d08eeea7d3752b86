"""The forge's GraphQL schema is a faithful subset of GitHub's public schema.

GitHub's schema comes from the npm package @octokit/graphql-schema, installed under .cache/
by fetch_graphql_schema.sh (the Makefile runs it before the tests).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    Undefined,
    build_schema,
    parse,
    validate,
)

from github_mcp.services import discussions
from github_mcp.services.projects import projects as project_queries
from github_mcp.services.repos import blame
from sandbox_forge.graphql.endpoint import SCHEMA

from .test_demo import STATE as DEMO_STATE
from .test_demo import THREADS as DEMO_THREADS
from .test_reviews import CREATE_COMMIT, THREADS

GRAPHQL_SCHEMA_PACKAGE = "@octokit/graphql-schema"
GRAPHQL_SCHEMA_VERSION = "15.26.1"
PACKAGE_DIR = (
    Path(__file__).resolve().parents[2]
    / ".cache/graphql-schema/node_modules/@octokit/graphql-schema"
)
BUILT_IN = {"String", "Int", "Float", "Boolean", "ID"}

# Operations the controller sends (and the tests use): valid against GitHub's own schema.
OPERATIONS = [
    THREADS,
    DEMO_THREADS,
    DEMO_STATE,
    CREATE_COMMIT,
    """mutation($id: ID!) { resolveReviewThread(input: {threadId: $id}) {
         thread { id isResolved } } }""",
    """mutation($id: ID!) { unresolveReviewThread(input: {threadId: $id}) {
         thread { id isResolved } } }""",
    """mutation($id: ID!, $body: String!) { addPullRequestReviewThreadReply(
         input: {pullRequestReviewThreadId: $id, body: $body}) {
         comment { id databaseId url } } }""",
    """query($owner: String!, $name: String!, $ref: String!) {
       repository(owner: $owner, name: $name) {
         ref(qualifiedName: $ref) { name prefix target { oid ... on Commit { url } } }
         defaultBranchRef { name target { oid } } } }""",
    "{ viewer { login } }",
    # Projects (v2): the controller's reads for both kinds of owner, and the item writes.
    *(
        query.replace("OWNER", owner)
        for query in (
            project_queries.LIST_PROJECTS,
            project_queries.GET_PROJECT,
            project_queries.LIST_ITEMS,
        )
        for owner in ("organization", "user")
    ),
    project_queries.ADD_ITEM,
    project_queries.UPDATE_VALUE,
    project_queries.ARCHIVE_ITEM,
    discussions.CATEGORIES_QUERY,
    discussions.LIST_QUERY,
    discussions.GET_QUERY,
    discussions.COMMENTS_QUERY,
    discussions.ADD_COMMENT,
    blame.QUERY,
]


@pytest.fixture(scope="module")
def github() -> GraphQLSchema:
    schema_file = PACKAGE_DIR / "schema.graphql"
    if not schema_file.is_file():
        pytest.fail(
            f"GitHub's GraphQL schema is missing at {schema_file}. Run "
            f"tests/forge_collab/fetch_graphql_schema.sh (installs "
            f"{GRAPHQL_SCHEMA_PACKAGE}@{GRAPHQL_SCHEMA_VERSION})."
        )
    installed = json.loads((PACKAGE_DIR / "package.json").read_text())["version"]
    assert installed == GRAPHQL_SCHEMA_VERSION, (
        f"{GRAPHQL_SCHEMA_PACKAGE} {installed} is installed; the tests pin "
        f"{GRAPHQL_SCHEMA_VERSION}: rerun fetch_graphql_schema.sh"
    )
    schema = build_schema(schema_file.read_text(), assume_valid_sdl=True)
    # graphql-core rejects a few of GitHub's deprecations (deprecated implementations of
    # undeprecated interface fields); they do not matter for validating operations.
    schema._validation_errors = []  # type: ignore[attr-defined]
    return schema


def _required_args(field) -> set[str]:
    return {
        name
        for name, arg in field.args.items()
        if isinstance(arg.type, GraphQLNonNull) and arg.default_value is Undefined
    }


def _compare_fields(name: str, mine, theirs) -> list[str]:
    problems = []
    for field_name, field in mine.fields.items():
        other = theirs.fields.get(field_name)
        where = f"{name}.{field_name}"
        if other is None:
            problems.append(f"{where}: not in GitHub's schema")
            continue
        if str(field.type) != str(other.type):
            problems.append(f"{where}: {field.type} here, {other.type} on GitHub")
        for arg_name, arg in getattr(field, "args", {}).items():
            github_arg = other.args.get(arg_name)
            if github_arg is None:
                problems.append(f"{where}({arg_name}): GitHub has no such argument")
            elif str(arg.type) != str(github_arg.type):
                problems.append(
                    f"{where}({arg_name}): {arg.type} here, {github_arg.type} on GitHub"
                )
        if hasattr(field, "args"):
            missing = _required_args(other) - set(field.args)
            if missing:
                problems.append(f"{where}: lacks GitHub's required arguments {sorted(missing)}")
    return problems


def test_every_type_field_and_argument_matches_github(github):
    problems: list[str] = []
    for name, mine in SCHEMA.type_map.items():
        if name.startswith("__") or name in BUILT_IN:
            continue
        theirs = github.type_map.get(name)
        if theirs is None:
            problems.append(f"{name}: GitHub has no such type")
            continue
        if type(mine) is not type(theirs):
            problems.append(
                f"{name}: {type(mine).__name__} here, {type(theirs).__name__} on GitHub"
            )
            continue
        if isinstance(mine, GraphQLObjectType | GraphQLInterfaceType):
            extra = {i.name for i in mine.interfaces} - {i.name for i in theirs.interfaces}
            if extra:
                problems.append(f"{name}: GitHub does not implement {sorted(extra)}")
            problems += _compare_fields(name, mine, theirs)
        elif isinstance(mine, GraphQLInputObjectType):
            problems += _compare_fields(name, mine, theirs)
            required = {
                f
                for f, value in theirs.fields.items()
                if isinstance(value.type, GraphQLNonNull) and value.default_value is Undefined
            }
            if required - set(mine.fields):
                problems.append(
                    f"{name}: lacks required input fields {sorted(required - set(mine.fields))}"
                )
        elif isinstance(mine, GraphQLEnumType):
            extra = set(mine.values) - set(theirs.values)
            if extra:
                problems.append(f"{name}: values {sorted(extra)} are not GitHub's")
    assert not problems, "\n".join(problems)


def test_the_subset_covers_what_the_controller_uses():
    query = SCHEMA.query_type
    mutation = SCHEMA.mutation_type
    assert query is not None and mutation is not None
    assert {"repository", "viewer", "node"} <= set(query.fields)
    assert {"resolveReviewThread", "unresolveReviewThread", "createCommitOnBranch"} <= set(
        mutation.fields
    )
    thread = SCHEMA.type_map["PullRequestReviewThread"]
    assert isinstance(thread, GraphQLObjectType)
    assert {"id", "isResolved", "isOutdated", "path", "line", "diffSide", "comments"} <= set(
        thread.fields
    )


@pytest.mark.parametrize("operation", OPERATIONS)
def test_operations_are_valid_on_github_and_here(github, operation):
    document = parse(operation)
    assert validate(github, document) == []
    assert validate(SCHEMA, document) == []

"""POST /graphql (and /api/graphql): a faithful subset of GitHub's GraphQL schema.

Served by graphql-core. Covers what the controller uses: a pull request's review threads
with their comments, resolving and unresolving threads, replying to one,
`createCommitOnBranch`, and Projects (v2) with their item mutations (projects.py). Type,
field and argument names and types match GitHub's public schema (tests/forge_collab
checks them against @octokit/graphql-schema). Errors come back as GitHub sends them:
status 200, `{"data": …, "errors": [{"type", "path", "locations", "message"}]}`.

The schema's SDL is in graphql_sdl.py, the request context and pagination in
graphql_context.py, object views in graphql_views.py, query roots in graphql_resolvers.py
and mutations in graphql_mutations.py; their public names are re-exported here.
"""

from __future__ import annotations

import json
from typing import Any

from graphql import (
    FragmentDefinitionNode,
    GraphQLError,
    GraphQLObjectType,
    GraphQLSchema,
    OperationType,
    build_schema,
    execute_sync,
    get_operation_ast,
)
from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.graphql.blame import BLAME_SDL, commit_author, commit_blame
from sandbox_forge.graphql.context import MAX_PAGE, Context, GQLFailure, connection
from sandbox_forge.graphql.cost import query_cost
from sandbox_forge.graphql.discussions import DISCUSSION_SDL
from sandbox_forge.graphql.discussions import attach as attach_discussions
from sandbox_forge.graphql.documents import DocumentCache, InvalidDocument
from sandbox_forge.graphql.git_objects import CommitView, commit_file, repository_object
from sandbox_forge.graphql.mutations import (
    add_thread_reply,
    create_commit_on_branch,
    resolve_thread,
    unresolve_thread,
)
from sandbox_forge.graphql.project_admin import attach as attach_project_admin
from sandbox_forge.graphql.project_mutations import add_item, archive_item, update_value
from sandbox_forge.graphql.projects import (
    resolve_organization,
    resolve_user,
    user_project,
    user_projects,
)
from sandbox_forge.graphql.pull_mutations import (
    add_review_thread,
    convert_to_draft,
    mark_ready_for_review,
)
from sandbox_forge.graphql.pull_views import (
    latest_opinionated_reviews,
    latest_reviews,
    pull_additions,
    pull_changed_files,
    pull_commits,
    pull_deletions,
    pull_files,
    status_check_rollup,
)
from sandbox_forge.graphql.resolvers import (
    resolve_node,
    resolve_rate_limit,
    resolve_repository,
    resolve_viewer,
)
from sandbox_forge.graphql.sdl import SDL
from sandbox_forge.graphql.sdl_project_admin import PROJECT_ADMIN_SDL
from sandbox_forge.graphql.views import (
    CommentView,
    PullRequestView,
    RefView,
    RepositoryView,
    ReviewView,
    ThreadView,
    UserView,
    actor,
    parse_ref_id,
    ref_id,
    review_decision,
)
from sandbox_forge.kernel.errors import ApiError, json_response
from sandbox_forge.kernel.urls import Urls
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.auth import Principal
from sandbox_forge.stores.state import ForgeState

AUTH_DOCS = (
    "https://docs.github.com/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql"
)


PULL_FIELDS = {
    "files": pull_files,
    "additions": pull_additions,
    "deletions": pull_deletions,
    "changedFiles": pull_changed_files,
    "commits": pull_commits,
    "latestReviews": latest_reviews,
    "latestOpinionatedReviews": latest_opinionated_reviews,
}


def build() -> GraphQLSchema:
    schema = build_schema(SDL + DISCUSSION_SDL + BLAME_SDL + PROJECT_ADMIN_SDL)
    query, mutation = schema.query_type, schema.mutation_type
    assert query is not None and mutation is not None
    query.fields["repository"].resolve = resolve_repository
    query.fields["viewer"].resolve = resolve_viewer
    query.fields["node"].resolve = resolve_node
    query.fields["rateLimit"].resolve = resolve_rate_limit
    _object_type(schema, "Commit").fields["file"].resolve = commit_file
    _object_type(schema, "Repository").fields["object"].resolve = repository_object
    _object_type(schema, "Commit").fields["statusCheckRollup"].resolve = status_check_rollup
    _object_type(schema, "Commit").fields["author"].resolve = commit_author
    _object_type(schema, "Commit").fields["blame"].resolve = commit_blame
    pull = _object_type(schema, "PullRequest")
    for field, resolver in PULL_FIELDS.items():
        pull.fields[field].resolve = resolver
    mutation.fields["resolveReviewThread"].resolve = resolve_thread
    mutation.fields["unresolveReviewThread"].resolve = unresolve_thread
    mutation.fields["addPullRequestReviewThreadReply"].resolve = add_thread_reply
    mutation.fields["createCommitOnBranch"].resolve = create_commit_on_branch
    mutation.fields["addPullRequestReviewThread"].resolve = add_review_thread
    mutation.fields["markPullRequestReadyForReview"].resolve = mark_ready_for_review
    mutation.fields["convertPullRequestToDraft"].resolve = convert_to_draft
    _attach_projects(schema)
    attach_project_admin(schema)
    attach_discussions(schema)
    for name in ("Node", "Actor", "GitObject", "StatusCheckRollupContext", *PROJECT_UNIONS):
        schema.type_map[name].resolve_type = lambda value, _info, _type: value.typename  # type: ignore[attr-defined]
    return schema


PROJECT_UNIONS = ("ProjectV2ItemContent", "ProjectV2FieldConfiguration", "ProjectV2ItemFieldValue")


def _attach_projects(schema: GraphQLSchema) -> None:
    query, mutation = schema.query_type, schema.mutation_type
    assert query is not None and mutation is not None
    query.fields["organization"].resolve = resolve_organization
    query.fields["user"].resolve = resolve_user
    user = _object_type(schema, "User")
    user.fields["projectsV2"].resolve = user_projects
    user.fields["projectV2"].resolve = user_project
    mutation.fields["addProjectV2ItemById"].resolve = add_item
    mutation.fields["updateProjectV2ItemFieldValue"].resolve = update_value
    mutation.fields["archiveProjectV2Item"].resolve = archive_item


def _object_type(schema: GraphQLSchema, name: str) -> GraphQLObjectType:
    found = schema.type_map[name]
    assert isinstance(found, GraphQLObjectType)
    return found


SCHEMA = build()
DOCUMENTS = DocumentCache(SCHEMA)


def _error_json(error: GraphQLError) -> dict[str, Any]:
    data: dict[str, Any] = {}
    original = error.original_error
    if isinstance(original, GQLFailure):
        data["type"] = original.kind
    if error.path is not None:
        data["path"] = list(error.path)
    if error.locations:
        data["locations"] = [{"line": loc.line, "column": loc.column} for loc in error.locations]
    data["message"] = error.message
    return data


def run_query(
    state: ForgeState,
    principal: Principal,
    urls: Urls,
    payload: dict[str, Any],
    log_entry: dict[str, Any] | None = None,
) -> dict[str, Any]:
    query = payload.get("query")
    if not isinstance(query, str) or not query.strip():
        return {
            "errors": [{"message": "A query attribute must be specified and must be a string."}]
        }
    variables = _variables(payload.get("variables") or {})
    if variables is None:
        return {"errors": [{"message": "Variables are invalid JSON."}]}
    try:
        document = DOCUMENTS.document(query)
    except InvalidDocument as invalid:
        return {"errors": [_error_json(e) for e in invalid.errors]}
    operation = get_operation_ast(document, payload.get("operationName"))
    if operation is not None and log_entry is not None:
        # POST is GitHub's one method for both: the log tells reads from writes.
        log_entry["graphql"] = operation.operation.value
    if operation is not None and operation.operation == OperationType.SUBSCRIPTION:
        return {"errors": [{"message": "Subscriptions are not supported"}]}
    if operation is not None and operation.operation == OperationType.QUERY:
        _charge(state, principal, document, operation, variables)
    result = execute_sync(
        SCHEMA,
        document,
        variable_values=variables,
        operation_name=payload.get("operationName"),
        context_value=Context(state, principal, urls),
    )
    body: dict[str, Any] = {}
    if result.data is not None or not result.errors:
        body["data"] = result.data
    if result.errors:
        body["errors"] = [_error_json(e) for e in result.errors]
    return body


def _variables(given: Any) -> dict[str, Any] | None:
    """The query's variables: an object, or a string holding one (GitHub takes both)."""
    if isinstance(given, str):
        try:
            given = json.loads(given) if given.strip() else {}
        except ValueError:
            return None
    return given if isinstance(given, dict) else None


def _charge(
    state: ForgeState,
    principal: Principal,
    document: Any,
    operation: Any,
    variables: dict[str, Any],
) -> None:
    """A query costs its computed points; the request itself already paid one."""
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    cost = query_cost(operation, fragments, variables).cost
    for _ in range(cost - 1):
        state.rate.consume(principal.rate_key, "graphql", principal.anonymous)


@endpoint
def graphql_endpoint(ctx: Ctx) -> Response:
    if ctx.principal.anonymous:
        raise ApiError(
            401, "This endpoint requires you to be authenticated.", documentation_url=AUTH_DOCS
        )
    try:
        payload = json.loads(ctx.body) if ctx.body.strip() else {}
    except (ValueError, UnicodeDecodeError):
        raise ApiError(400, "Problems parsing JSON") from None
    if not isinstance(payload, dict):
        raise ApiError(400, "Problems parsing JSON")
    entry = ctx.request.scope.get("forge.log_entry")
    answer = run_query(ctx.state, ctx.principal, ctx.urls, payload, entry)
    if ctx.state.contract is not None:
        ctx.state.contract.graphql(payload, answer)
    return json_response(answer)


def routes(state: ForgeState) -> list[Route]:
    # GitHub Enterprise serves GraphQL at /api/graphql, beside the REST API's /api/v3.
    return [
        Route("/graphql", graphql_endpoint, methods=["POST"]),
        Route("/api/graphql", graphql_endpoint, methods=["POST"]),
    ]


__all__ = [
    "AUTH_DOCS",
    "MAX_PAGE",
    "SCHEMA",
    "SDL",
    "CommentView",
    "CommitView",
    "Context",
    "GQLFailure",
    "PullRequestView",
    "RefView",
    "RepositoryView",
    "ReviewView",
    "ThreadView",
    "UserView",
    "actor",
    "add_thread_reply",
    "build",
    "connection",
    "create_commit_on_branch",
    "graphql_endpoint",
    "parse_ref_id",
    "ref_id",
    "resolve_node",
    "resolve_repository",
    "resolve_thread",
    "resolve_viewer",
    "review_decision",
    "routes",
    "run_query",
    "unresolve_thread",
]

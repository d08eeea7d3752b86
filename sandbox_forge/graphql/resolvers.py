"""GraphQL query roots (`node`, `repository`, `viewer`) and the global-id lookups they and
the mutations share: what the caller cannot read is NOT_FOUND, as on GitHub."""

from __future__ import annotations

from typing import Any

from sandbox_forge.graphql.context import Context, GQLFailure
from sandbox_forge.graphql.cost import query_cost
from sandbox_forge.graphql.projects import ItemView, ProjectView, access
from sandbox_forge.graphql.views import (
    CommentView,
    PullRequestView,
    RepositoryView,
    ThreadView,
    UserView,
)
from sandbox_forge.kernel.formats import iso
from sandbox_forge.rest.moved import moved_names
from sandbox_forge.stores.collab import Thread, collab
from sandbox_forge.stores.lookups import parse_node_id, repo_by_id
from sandbox_forge.stores.projects import find_by_node
from sandbox_forge.stores.pull_heads import live_head
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.reviews import thread_outdated


def find_node(ctx: Context, value: str) -> tuple[str, RepoRecord, int]:
    parsed = parse_node_id(value)
    repo = repo_by_id(ctx.state, parsed[1]) if parsed else None
    if parsed is None or not ctx.readable(repo):
        raise GQLFailure(
            "NOT_FOUND", f"Could not resolve to a node with the global id of '{value}'"
        )
    assert repo is not None
    return parsed[0], repo, parsed[2]


def find_thread(ctx: Context, value: str) -> tuple[RepoRecord, Thread]:
    prefix, repo, ident = find_node(ctx, value)
    thread = collab(repo).threads.get(ident) if prefix == "PRRT" else None
    if thread is None:
        raise GQLFailure(
            "NOT_FOUND", f"Could not resolve to a node with the global id of '{value}'"
        )
    return repo, thread


def _project_node(ctx: Context, value: str) -> Any:
    """A project (PVT_) or a project item (PVTI_) the caller may read, else None."""
    found = find_by_node(ctx.state, value)
    if found is None or access(ctx, found[1]) is None:
        return None
    prefix, project, thing = found
    if prefix == "PVT":
        return ProjectView(ctx, project)
    return ItemView(ctx, project, thing) if prefix == "PVTI" else None


def resolve_node(root: Any, info: Any, id: str) -> Any:
    ctx: Context = info.context
    project_node = _project_node(ctx, id)
    if project_node is not None:
        return project_node
    prefix, repo, ident = find_node(ctx, id)
    data = collab(repo)
    if prefix == "PRRT" and ident in data.threads:
        return ThreadView(ctx, repo, data.threads[ident])
    if prefix == "PRRC" and ident in data.review_comments:
        comment = data.review_comments[ident]
        thread = data.threads[comment.thread_id]
        outdated = thread_outdated(repo, thread, live_head(repo, data.issues[comment.number]))
        return CommentView(ctx, repo, comment, outdated)
    if prefix == "PR":
        issue = next((i for i in data.issues.values() if i.id == ident and i.pull), None)
        if issue is not None:
            return PullRequestView(ctx, repo, issue)
    raise GQLFailure("NOT_FOUND", f"Could not resolve to a node with the global id of '{id}'")


def resolve_repository(
    root: Any, info: Any, owner: str, name: str, followRenames: bool = True
) -> Any:
    ctx: Context = info.context
    repo = ctx.state.repo(owner, name)
    if repo is None and followRenames:
        # A renamed or transferred repository answers under its old name, as on GitHub.
        moved = moved_names(ctx.state).get(f"{owner}/{name}".lower())
        repo = next((r for r in ctx.state.all_repos() if r.id == moved), None)
    if not ctx.readable(repo):
        raise GQLFailure(
            "NOT_FOUND", f"Could not resolve to a Repository with the name '{owner}/{name}'."
        )
    assert repo is not None
    return RepositoryView(ctx, repo)


def resolve_viewer(root: Any, info: Any) -> UserView:
    ctx: Context = info.context
    if ctx.principal.login is None:
        raise GQLFailure("FORBIDDEN", "Resource not accessible by integration")
    return UserView(ctx, ctx.state.ensure_user(ctx.principal.login))


def resolve_rate_limit(root: Any, info: Any, dryRun: bool = False) -> dict[str, Any]:
    """The caller's GraphQL budget and what this query costs (it is charged once run)."""
    ctx: Context = info.context
    cost = query_cost(info.operation, info.fragments, info.variable_values or {})
    bucket = ctx.state.rate.bucket(ctx.principal.rate_key, "graphql", ctx.principal.anonymous)
    return {
        "cost": cost.cost,
        "nodeCount": cost.node_count,
        "limit": bucket.limit,
        "remaining": bucket.remaining,
        "used": bucket.used,
        "resetAt": iso(bucket.reset),
    }

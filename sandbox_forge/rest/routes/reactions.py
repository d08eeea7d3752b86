"""Reactions on issues (and pull requests), issue comments and review comments, by GitHub's
REST description: one reaction per user, subject and content; adding it again answers 200
with the existing one, a new one 201. Listing pages them oldest first, optionally of one
content. The records are in stores/reactions.py."""

from __future__ import annotations

import time
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.kernel.errors import invalid_request, json_response, missing_field, not_found
from sandbox_forge.kernel.formats import iso, node_id
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.stores.collab import collab
from sandbox_forge.stores.lookups import actor_login, get_issue, user_json
from sandbox_forge.stores.reactions import CONTENTS, Reaction, reactions_of
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState


def _subject(ctx: Ctx, repo: RepoRecord, kind: str) -> str:
    if kind == "issue":
        return f"issue:{get_issue(repo, ctx.params['number']).number}"
    ident = ctx.params["comment_id"]
    store = collab(repo).issue_comments if kind == "issue_comment" else collab(repo).review_comments
    if ident not in store:
        raise not_found()
    return f"{kind}:{ident}"


def _react(ctx: Ctx, kind: str) -> Response:
    repo = ctx.repo()  # reacting needs only read access, as on GitHub
    content = ctx.json().get("content")
    if content is None:
        raise missing_field("content")
    if content not in CONTENTS:
        raise invalid_request(
            f"For 'properties/content', {content!r} is not a member of {list(CONTENTS)}."
        )
    login = actor_login(ctx.principal)
    with ctx.state.lock:
        existing = reactions_of(repo, _subject(ctx, repo, kind))
        same = [r for r in existing if r.user.lower() == login.lower() and r.content == content]
        if same:
            return json_response(_json(ctx, same[0]))
        reaction = Reaction(ctx.state.next_id(), login, content, time.time())
        existing.append(reaction)
    return json_response(_json(ctx, reaction), status=201)


def _list(ctx: Ctx, kind: str) -> Response:
    repo = ctx.repo()
    wanted = ctx.query.get("content")
    if wanted is not None and wanted not in CONTENTS:
        raise invalid_request(f"For 'content', {wanted!r} is not a member of {list(CONTENTS)}.")
    with ctx.state.lock:
        found = list(reactions_of(repo, _subject(ctx, repo, kind)))
    found = [r for r in found if wanted is None or r.content == wanted]
    return ctx.paginate(found, lambda r: _json(ctx, r))


def _json(ctx: Ctx, reaction: Reaction) -> dict[str, Any]:
    return {
        "id": reaction.id,
        "node_id": node_id("Reaction", reaction.id),
        "user": user_json(ctx.state, ctx.urls, reaction.user),
        "content": reaction.content,
        "created_at": iso(reaction.created_at),
    }


@endpoint
def react_to_issue(ctx: Ctx) -> Response:
    if ctx.request.method == "GET":
        return _list(ctx, "issue")
    return _react(ctx, "issue")


@endpoint
def react_to_issue_comment(ctx: Ctx) -> Response:
    if ctx.request.method == "GET":
        return _list(ctx, "issue_comment")
    return _react(ctx, "issue_comment")


@endpoint
def react_to_review_comment(ctx: Ctx) -> Response:
    if ctx.request.method == "GET":
        return _list(ctx, "review_comment")
    return _react(ctx, "review_comment")


def routes(state: ForgeState) -> list[Route]:
    base = "/repos/{owner}/{repo}"
    return [
        Route(f"{base}/issues/{{number:int}}/reactions", react_to_issue, methods=["GET", "POST"]),
        Route(
            f"{base}/issues/comments/{{comment_id:int}}/reactions",
            react_to_issue_comment,
            methods=["GET", "POST"],
        ),
        Route(
            f"{base}/pulls/comments/{{comment_id:int}}/reactions",
            react_to_review_comment,
            methods=["GET", "POST"],
        ),
    ]

"""An issue's labels (list, add, set, remove) and a repository's labels (list, create)."""

from __future__ import annotations

import json

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.kernel.errors import (
    ApiError,
    json_response,
    missing_field,
    not_found,
    validation_failed,
)
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.collab_api import created_response
from sandbox_forge.rest.routes.issues import label_names
from sandbox_forge.stores.collab import Issue, collab
from sandbox_forge.stores.lookups import ensure_label, get_issue, label_json, now
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState


def _issue_labels_response(ctx: Ctx, repo: RepoRecord, issue: Issue) -> Response:
    labels = [ensure_label(ctx.state, repo, name) for name in issue.labels]
    return json_response([label_json(ctx.urls, repo, label) for label in labels])


def _labels_from_body(ctx: Ctx) -> list[str]:
    try:
        raw = json.loads(ctx.body) if ctx.body.strip() else {}
    except ValueError as exc:
        raise ApiError(400, "Problems parsing JSON") from exc
    if isinstance(raw, list):  # GitHub also takes a bare array of names
        return label_names(raw)
    if not isinstance(raw, dict) or "labels" not in raw:
        raise missing_field("labels")
    return label_names(raw["labels"])


@endpoint
def list_issue_labels(ctx: Ctx):
    repo = ctx.repo()
    return _issue_labels_response(ctx, repo, get_issue(repo, ctx.params["number"]))


@endpoint
def add_labels(ctx: Ctx):
    repo = ctx.repo(write=True)
    issue = get_issue(repo, ctx.params["number"])
    names = _labels_from_body(ctx)
    with ctx.state.lock:
        present = {n.lower() for n in issue.labels}
        for name in names:
            if name.lower() not in present:
                issue.labels.append(ensure_label(ctx.state, repo, name).name)
                present.add(name.lower())
        issue.updated_at = now()
    return _issue_labels_response(ctx, repo, issue)


@endpoint
def set_labels(ctx: Ctx):
    repo = ctx.repo(write=True)
    issue = get_issue(repo, ctx.params["number"])
    names = _labels_from_body(ctx)
    with ctx.state.lock:
        issue.labels = [ensure_label(ctx.state, repo, n).name for n in names]
        issue.updated_at = now()
    return _issue_labels_response(ctx, repo, issue)


@endpoint
def remove_label(ctx: Ctx):
    repo = ctx.repo(write=True)
    issue = get_issue(repo, ctx.params["number"])
    name = ctx.params["name"].lower()
    with ctx.state.lock:
        if name not in (n.lower() for n in issue.labels):
            raise not_found("Label does not exist")
        issue.labels = [n for n in issue.labels if n.lower() != name]
        issue.updated_at = now()
    return _issue_labels_response(ctx, repo, issue)


@endpoint
def list_repo_labels(ctx: Ctx):
    repo = ctx.repo()
    labels = sorted(collab(repo).labels.values(), key=lambda label: label.name.lower())
    return ctx.paginate(labels, lambda label: label_json(ctx.urls, repo, label))


@endpoint
def create_label(ctx: Ctx):
    repo = ctx.repo(write=True)
    body = ctx.json()
    name = body.get("name")
    if not isinstance(name, str) or not name.strip():
        raise missing_field("name")
    color = str(body.get("color") or "ededed").lstrip("#").lower()
    if len(color) != 6 or any(c not in "0123456789abcdef" for c in color):
        raise validation_failed({"resource": "Label", "code": "invalid", "field": "color"})
    with ctx.state.lock:
        if name.lower() in collab(repo).labels:
            raise validation_failed(
                {"resource": "Label", "code": "already_exists", "field": "name"}
            )
        label = ensure_label(ctx.state, repo, name.strip())
        label.color = color
        label.description = body.get("description")
    data = label_json(ctx.urls, repo, label)
    return created_response(data)


def routes(state: ForgeState) -> list[Route]:
    base = "/repos/{owner}/{repo}"
    issue = f"{base}/issues/{{number:int}}"
    return [
        Route(f"{issue}/labels", list_issue_labels, methods=["GET"]),
        Route(f"{issue}/labels", add_labels, methods=["POST"]),
        Route(f"{issue}/labels", set_labels, methods=["PUT"]),
        Route(f"{issue}/labels/{{name}}", remove_label, methods=["DELETE"]),
        Route(f"{base}/labels", list_repo_labels, methods=["GET"]),
        Route(f"{base}/labels", create_label, methods=["POST"]),
    ]

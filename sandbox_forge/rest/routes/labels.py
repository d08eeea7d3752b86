"""A repository's labels one by one: get, update (rename, recolour, describe), delete.

Listing and creating labels live with issues (routes/issues.py). Issues keep label names,
so a rename or a delete reaches every issue and pull request carrying the label, as on
GitHub.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.kernel.errors import invalid_request, json_response, not_found, validation_failed
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.stores.collab import Label, collab
from sandbox_forge.stores.lookups import label_json, now
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

HEX = set("0123456789abcdef")
MAX_DESCRIPTION = 100  # GitHub refuses longer label descriptions


def _label(repo: RepoRecord, name: str) -> Label:
    label = collab(repo).labels.get(name.lower())
    if label is None:
        raise not_found()
    return label


def _changes(body: dict[str, Any]) -> dict[str, Any]:
    for field in ("new_name", "color", "description"):
        if field in body and not isinstance(body[field], str):
            raise invalid_request(f"For 'properties/{field}', {body[field]!r} is not a string.")
    if "color" in body:
        color = body["color"].lstrip("#").lower()
        if len(color) != 6 or not set(color) <= HEX:
            raise validation_failed({"resource": "Label", "code": "invalid", "field": "color"})
        body = {**body, "color": color}
    if len(body.get("description") or "") > MAX_DESCRIPTION:
        raise validation_failed({"resource": "Label", "code": "invalid", "field": "description"})
    if "new_name" in body and not body["new_name"].strip():
        raise validation_failed({"resource": "Label", "code": "invalid", "field": "name"})
    return body


def _rename(repo: RepoRecord, label: Label, new_name: str) -> None:
    labels = collab(repo).labels
    taken = labels.get(new_name.lower())
    if taken is not None and taken is not label:
        raise validation_failed({"resource": "Label", "code": "already_exists", "field": "name"})
    old = label.name
    del labels[old.lower()]
    label.name = new_name
    labels[new_name.lower()] = label
    for issue in collab(repo).issues.values():
        if any(n.lower() == old.lower() for n in issue.labels):
            issue.labels = [new_name if n.lower() == old.lower() else n for n in issue.labels]
            issue.updated_at = now()


@endpoint
def get_label(ctx: Ctx) -> Response:
    repo = ctx.repo()
    return json_response(label_json(ctx.urls, repo, _label(repo, ctx.params["name"])))


@endpoint
def update_label(ctx: Ctx) -> Response:
    repo = ctx.repo(write=True)
    body = _changes(ctx.json())
    with ctx.state.lock:
        label = _label(repo, ctx.params["name"])
        if "new_name" in body:
            _rename(repo, label, body["new_name"].strip())
        if "color" in body:
            label.color = body["color"]
        if "description" in body:
            label.description = body["description"]
    return json_response(label_json(ctx.urls, repo, label))


@endpoint
def delete_label(ctx: Ctx) -> Response:
    repo = ctx.repo(write=True)
    with ctx.state.lock:
        label = _label(repo, ctx.params["name"])
        del collab(repo).labels[label.name.lower()]
        for issue in collab(repo).issues.values():
            kept = [n for n in issue.labels if n.lower() != label.name.lower()]
            if kept != issue.labels:
                issue.labels, issue.updated_at = kept, now()
    return Response(status_code=204)


def routes(state: ForgeState) -> list[Route]:
    one = "/repos/{owner}/{repo}/labels/{name:path}"  # label names may hold slashes
    return [
        Route(one, get_label, methods=["GET"]),
        Route(one, update_label, methods=["PATCH"]),
        Route(one, delete_label, methods=["DELETE"]),
    ]
